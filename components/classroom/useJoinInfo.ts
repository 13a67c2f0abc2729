"use client";

import { useEffect, useState } from "react";
import { knownJoinNote, readApi, type JoinInfo } from "@/lib/protocol/rest";
import { isRoomCode } from "@/lib/roomCode";

/** What the join-info lookup said: still asking, the info, a clear "no such session" (404), or another failure. */
export type JoinInfoState =
  { status: "checking" } | { status: "ok"; info: JoinInfo } | { status: "missing" } | { status: "error"; message: string };

/**
 * The one `GET /api/join-info` of a page: the address students' phones can
 * reach (PUBLIC_URL, or this machine's LAN address), its QR code, and whether
 * the code is live. `enabled: false` asks nothing.
 */
export function useJoinInfo(code: string, enabled = true): JoinInfoState {
  const [state, setState] = useState<JoinInfoState>(isRoomCode(code) ? { status: "checking" } : { status: "missing" });
  useEffect(() => {
    if (!enabled || !isRoomCode(code)) return;
    let cancelled = false;
    fetch(`/api/join-info?code=${encodeURIComponent(code)}`)
      .then(async (res) => {
        const reply = await readApi<JoinInfo>(res);
        if (cancelled) return;
        if (reply.ok) setState({ status: "ok", info: { ...reply.body, note: knownJoinNote(reply.body.note) } });
        else if (reply.status === 404) setState({ status: "missing" });
        else setState({ status: "error", message: reply.message || "Could not get the join link." });
      })
      .catch(() => !cancelled && setState({ status: "error", message: "Could not reach the server." }));
    return () => {
      cancelled = true;
    };
  }, [code, enabled]);
  return state;
}
