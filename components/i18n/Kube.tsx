import type { ReactNode } from "react";

/**
 * Kubernetes as Kubernetes prints it (event reasons, field names, YAML,
 * kubectl): never translated, and kept left to right inside right-to-left
 * text, where the bidi algorithm would otherwise move its punctuation;
 * `translate="no"` tells translation tools, and the pseudo-locale check
 * (e2e/pseudo.ts), that it is not the interface's to translate.
 */
export function Kube({ children }: { children: ReactNode }) {
  return (
    <bdi dir="ltr" translate="no">
      {children}
    </bdi>
  );
}

/** The `<k8s>` tag of a rich catalog message: `t.rich("key", { k8s })`. */
export const k8s = (chunks: ReactNode) => <Kube>{chunks}</Kube>;
