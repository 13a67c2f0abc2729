"use client";

import { useEffect, useState } from "react";
import { showAnswerKey } from "@/components/live/storageKeys";

/** The teacher's choice to see the answer before the reveal, remembered in this browser. */
export function useShowAnswer(): [boolean, (show: boolean) => void] {
  const [show, setShow] = useState(false);
  useEffect(() => {
    try {
      setShow(localStorage.getItem(showAnswerKey) === "1");
    } catch {
      // Private mode: hidden by default.
    }
  }, []);
  return [
    show,
    (next) => {
      setShow(next);
      try {
        localStorage.setItem(showAnswerKey, next ? "1" : "0");
      } catch {
        // Private mode: remembered for this page only.
      }
    },
  ];
}
