"use client";

import { useState } from "react";
import { postJson } from "./api";
import { useAccountState } from "./useAccountState";

/**
 * The account controls at the top of a page: "Sign in" and "Create an
 * account" for a visitor, the teacher's name (their account page) and "Sign
 * out" once signed in. Students never need any of it; the join form works the
 * same either way.
 */
export function AccountMenu({ here = "/" }: { here?: string }) {
  const [load, reload] = useAccountState();
  const [notice, setNotice] = useState("");
  const next = encodeURIComponent(here);
  const link = "rounded-lg px-3 py-2 font-semibold text-sky-200 underline-offset-4 hover:underline";

  async function signOut() {
    try {
      await postJson("/api/account/sign-out");
      setNotice("You are signed out.");
    } catch (err) {
      setNotice(err instanceof Error ? err.message : "Could not sign out.");
    }
    await reload();
  }

  let body: React.ReactNode = null;
  if (load.status === "ready" && load.state.account) {
    const { displayName, admin } = load.state.account;
    body = (
      <nav aria-label="Your account" data-testid="account-menu" data-account={displayName} className="flex flex-wrap items-center gap-2">
        <a href="/account" className={link}>
          <span className="sr-only">Signed in as </span>
          {displayName}
          {admin && <span className="ml-2 rounded bg-amber-300 px-1.5 py-0.5 text-xs font-bold text-slate-950">admin</span>}
        </a>
        <a href="/assignments" className={link}>
          Assignments
        </a>
        <a href="/results/builtin" className={link}>
          Results
        </a>
        <button
          type="button"
          onClick={() => void signOut()}
          data-testid="sign-out"
          className="rounded-lg border border-slate-500 px-3 py-2 font-semibold text-slate-100 hover:bg-slate-800"
        >
          Sign out
        </button>
      </nav>
    );
  } else if (load.status === "ready") {
    body = (
      <nav aria-label="Teacher account" className="flex flex-wrap items-center gap-2">
        <a href={`/account/sign-in?next=${next}`} data-testid="sign-in" className={link}>
          Sign in
        </a>
        <a
          href={`/account/sign-up?next=${next}`}
          data-testid="sign-up"
          className="rounded-lg border border-sky-300 px-3 py-2 font-semibold text-sky-200 hover:bg-slate-800"
        >
          Create a teacher account
        </a>
      </nav>
    );
  }
  return (
    <div className="flex min-h-11 items-center justify-end gap-3">
      <p role="status" className="text-sm text-slate-300">
        {notice}
      </p>
      {body}
    </div>
  );
}
