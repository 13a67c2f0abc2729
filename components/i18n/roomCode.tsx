import type { ReactNode } from "react";

/** A room code inside a translated sentence (`<room>{code}</room>`): left to right in any language, never translated. */
export const roomCode = {
  room: (chunks: ReactNode) => (
    <bdi dir="ltr" translate="no">
      {chunks}
    </bdi>
  ),
};
