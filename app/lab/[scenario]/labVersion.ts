"use client";

import { useSyncExternalStore, type MouseEvent } from "react";
import { LAB_VERSION_PARAM } from "@/lib/lesson/lab";
import { DEFAULT_KUBE_VERSION, isKubeVersion, type KubeVersion } from "@/lib/lesson/versions";

/** The lab sheet's release in the URL (?k8s=1.32), read and switched in place (./LabSheetView.tsx). */

/** Tells the page that the version links changed the URL (history.replaceState fires no event of its own). */
const VERSION_CHANGED = "lab:version-changed";

function subscribe(onChange: () => void): () => void {
  window.addEventListener("popstate", onChange);
  window.addEventListener(VERSION_CHANGED, onChange);
  return () => {
    window.removeEventListener("popstate", onChange);
    window.removeEventListener(VERSION_CHANGED, onChange);
  };
}

/**
 * The release the URL names. Hydration reads the server's answer (the default) so the static HTML is
 * reused as it is; React then renders again with the URL's, changing only what differs, never remounting.
 */
export function useLabVersion(): KubeVersion {
  const named = useSyncExternalStore(
    subscribe,
    () => new URLSearchParams(window.location.search).get(LAB_VERSION_PARAM),
    () => null,
  );
  return isKubeVersion(named) ? named : DEFAULT_KUBE_VERSION;
}

const noSubscription = () => () => {};

/** False while hydrating (the server's HTML, the default release), true once the URL has been read. */
export function useUrlRead(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}

/** A plain click on a version link switches in place; a modified click (new tab) follows the link. */
export function switchInPlace(event: MouseEvent<HTMLAnchorElement>) {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  window.history.replaceState(window.history.state, "", event.currentTarget.href);
  window.dispatchEvent(new Event(VERSION_CHANGED));
}

/** A sheet's address in a release: the default release needs no parameter. */
export function sheetHref(slug: string, version: KubeVersion): string {
  return version === DEFAULT_KUBE_VERSION ? `/lab/${slug}` : `/lab/${slug}?${LAB_VERSION_PARAM}=${version}`;
}
