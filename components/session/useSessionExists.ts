"use client";

import { useEffect, useState } from "react";
import { isRoomCode } from "@/lib/protocol/wire";

/**
 * Whether a live session has this code, asked before showing a form that
 * assumes it does (a nickname form for a code that does not exist only
 * disappoints after the student has typed).
 */
export function useSessionExists(code: string, enabled = true): "checking" | "exists" | "missing" {
  const [state, setState] = useState<"checking" | "exists" | "missing">(isRoomCode(code) ? "checking" : "missing");
  useEffect(() => {
    if (!enabled || !isRoomCode(code)) return;
    let cancelled = false;
    fetch(`/api/join-info?code=${encodeURIComponent(code)}`)
      // Anything but a clear 404 (a rate limit, a network blip) lets the socket give the real answer.
      .then((res) => !cancelled && setState(res.status === 404 ? "missing" : "exists"))
      .catch(() => !cancelled && setState("exists"));
    return () => {
      cancelled = true;
    };
  }, [code, enabled]);
  return state;
}
