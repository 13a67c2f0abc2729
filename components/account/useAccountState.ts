"use client";

import { useCallback, useEffect, useState } from "react";
import type { AccountState } from "@/lib/account/rest";
import { AccountApiError, getAccountState } from "./api";

export type AccountLoad =
  | { status: "loading" }
  /** The server keeps no accounts (a store without them): the account controls are not shown. */
  | { status: "absent" }
  /** The server could not be asked (kept as it came, for useAccountErrorText to word it in the page's language). */
  | { status: "error"; error: unknown }
  | { status: "ready"; state: AccountState };

/** Who this browser is signed in as, read after hydration (the cookie is HttpOnly: only the server can say). */
export function useAccountState(): [AccountLoad, () => Promise<void>] {
  const [load, setLoad] = useState<AccountLoad>({ status: "loading" });
  const reload = useCallback(async () => {
    try {
      setLoad({ status: "ready", state: await getAccountState() });
    } catch (err) {
      if (err instanceof AccountApiError && err.status === 404) setLoad({ status: "absent" });
      else setLoad({ status: "error", error: err });
    }
  }, []);
  useEffect(() => {
    void reload();
  }, [reload]);
  return [load, reload];
}
