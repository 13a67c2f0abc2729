"use client";

import { useEffect, useState, type ComponentType } from "react";

/** The student's screen after the join (components/student/StudentLive.tsx). */
export type LiveScreen = ComponentType<{ code: string; nickname: string }>;

let loading: Promise<LiveScreen> | null = null;

/**
 * The live screen's chunk, fetched once per page. A fetch that failed (a
 * phone's Wi-Fi dropping as the class arrives) is not remembered: the next
 * call fetches it again.
 */
export function loadLiveScreen(): Promise<LiveScreen> {
  loading ??= import("./StudentLive").then(
    (m) => m.StudentLive,
    (err: unknown) => {
      loading = null;
      throw err;
    },
  );
  return loading;
}

/** The waits between fetches of a chunk that failed: 1, 2, 4, 8 s, then every 10 s for as long as the page is open. */
const RETRY_MS = [1_000, 2_000, 4_000, 8_000, 10_000];

export interface LiveScreenState {
  Screen: LiveScreen | null;
  /** Fetches failed in a row so far (0 once it is here): the page says it cannot reach the server, and after a few offers a reload. */
  failures: number;
}

/** The live screen once its chunk is here, fetched again and again while the network drops it. */
export function useLiveScreen(): LiveScreenState {
  const [state, setState] = useState<LiveScreenState>({ Screen: null, failures: 0 });
  useEffect(() => {
    let mounted = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const attempt = (failures: number) => {
      loadLiveScreen().then(
        (Screen) => {
          if (mounted) setState({ Screen, failures: 0 });
        },
        () => {
          if (!mounted) return;
          setState({ Screen: null, failures: failures + 1 });
          timer = setTimeout(() => attempt(failures + 1), RETRY_MS[Math.min(failures, RETRY_MS.length - 1)]);
        },
      );
    };
    attempt(0);
    return () => {
      mounted = false;
      clearTimeout(timer);
    };
  }, []);
  return state;
}
