"use client";

import { useEffect, useState } from "react";
import { useLive } from "@/components/live/LiveSession";

/** Seconds left until the server closes the poll, drawn against the server's clock. */
export function Countdown({ closesAt }: { closesAt: number | null }) {
  const offset = useLive((s) => s.clockOffsetMs);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (closesAt === null) return;
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [closesAt]);
  if (closesAt === null) return null;
  const left = Math.max(0, Math.ceil((closesAt - (now + offset)) / 1000));
  return (
    <span className="tabular-nums" data-testid="poll-countdown" aria-label={`${left} seconds left`}>
      ⏱ {left}s
    </span>
  );
}
