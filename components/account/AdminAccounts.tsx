"use client";

import { useEffect, useState } from "react";
import { getJson } from "./api";
import { panel } from "./Field";

interface Row {
  id: string;
  email: string;
  displayName: string;
  admin: boolean;
  createdAt: number;
}

/** The administrator's view of who has an account on this server. */
export function AdminAccounts() {
  const [rows, setRows] = useState<Row[] | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    getJson<{ accounts: Row[] }>("/api/account/admin/accounts").then(
      (r) => setRows(r.accounts),
      (err: unknown) => setError(err instanceof Error ? err.message : "Could not load the accounts."),
    );
  }, []);
  return (
    <section className={panel} aria-labelledby="admin-heading">
      <h2 id="admin-heading" className="text-2xl font-semibold">
        Accounts on this server
      </h2>
      <p className="mt-1 text-slate-300">
        You are this server&apos;s administrator: every teacher&apos;s sessions and lessons are on the{" "}
        <a href="/sessions" className="text-sky-300 underline">
          saved sessions
        </a>{" "}
        and{" "}
        <a href="/lessons" className="text-sky-300 underline">
          lessons
        </a>{" "}
        pages, to end or delete. Operators manage accounts with npm run account.
      </p>
      {error && (
        <p role="alert" className="mt-2 text-rose-300">
          {error}
        </p>
      )}
      {rows && (
        <table className="mt-3 w-full text-left">
          <thead>
            <tr className="text-slate-300">
              <th scope="col" className="py-1 pr-3 font-medium">
                Name
              </th>
              <th scope="col" className="py-1 pr-3 font-medium">
                Email
              </th>
              <th scope="col" className="py-1 pr-3 font-medium">
                Role
              </th>
              <th scope="col" className="py-1 font-medium">
                Since
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id} className="border-t border-slate-700">
                <td className="py-2 pr-3">{r.displayName}</td>
                <td className="py-2 pr-3">{r.email}</td>
                <td className="py-2 pr-3">{r.admin ? "administrator" : "teacher"}</td>
                <td className="py-2">{new Date(r.createdAt).toLocaleDateString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
