"use client";

import { useRouter } from "next/navigation";
import { useLocale, useTranslations } from "next-intl";
import { useState, type FormEvent } from "react";
import { saveHostKey } from "@/components/live/hostKeyStore";
import { readApi, type CreatedSessionBody } from "@/lib/protocol/rest";
import { TITLE_MAX, isRoomCode, normalizeRoomCode } from "@/lib/protocol/wire";

/** A refusal the server explained (its sentence, or the catalog's for it): shown as it is, not as "unreachable". */
class ServerRefusal extends Error {}

export function StartOrJoin() {
  return (
    <div className="grid gap-6 md:grid-cols-2">
      <StartForm />
      <JoinForm />
    </div>
  );
}

function StartForm() {
  const t = useTranslations("landing");
  const common = useTranslations("common");
  const locale = useLocale();
  const [title, setTitle] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function start(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const res = await fetch("/api/sessions", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ title }),
      });
      const reply = await readApi<CreatedSessionBody>(res);
      // The server's sentence is English: other languages read the catalog's.
      if (!reply.ok) throw new ServerRefusal((locale === "en" && reply.message) || t("startFailed"));
      const body = reply.body;
      saveHostKey(body.code, body.hostKey, Date.now());
      // A full navigation so the key travels in the fragment, never to the server.
      window.location.assign(`/host/${body.code}#key=${body.hostKey}`);
    } catch (err) {
      setError(err instanceof ServerRefusal ? err.message : t("startUnreachable"));
      setBusy(false);
    }
  }

  return (
    <form onSubmit={start} className="rounded-2xl border border-slate-700 bg-slate-900/70 p-6" aria-labelledby="start-heading">
      <h2 id="start-heading" className="text-2xl font-semibold">
        {t("startHeading")}
      </h2>
      <p className="mt-1 text-slate-300">{t("startLead")}</p>
      <label htmlFor="title" className="mt-5 block font-medium">
        {t("title")} <span className="font-normal text-slate-400">{common("optional")}</span>
      </label>
      <input
        id="title"
        name="title"
        value={title}
        maxLength={TITLE_MAX}
        onChange={(e) => setTitle(e.target.value)}
        placeholder={t("titlePlaceholder")}
        className="mt-2 w-full rounded-lg border border-slate-600 bg-slate-950 px-3 py-3 text-lg"
      />
      <button
        type="submit"
        disabled={busy}
        data-testid="start-session"
        className="mt-5 w-full rounded-lg bg-sky-400 px-4 py-3 text-lg font-semibold text-slate-950 hover:bg-sky-300 disabled:opacity-60"
      >
        {busy ? t("starting") : t("startHeading")}
      </button>
      {error && (
        <p role="alert" className="mt-3 text-rose-300">
          {error}
        </p>
      )}
    </form>
  );
}

export function JoinForm({ initialCode = "" }: { initialCode?: string }) {
  const t = useTranslations("landing");
  const common = useTranslations("common");
  const router = useRouter();
  const [code, setCode] = useState(initialCode);
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);

  function join(e: FormEvent) {
    e.preventDefault();
    const normalized = normalizeRoomCode(code);
    if (!isRoomCode(normalized)) {
      setError(t("badCode", { example: "K7QX3M" }));
      return;
    }
    const query = name.trim() ? `?name=${encodeURIComponent(name.trim())}` : "?name=";
    router.push(`/join/${normalized}${query}`);
  }

  return (
    <form onSubmit={join} className="rounded-2xl border border-slate-700 bg-slate-900/70 p-6" aria-labelledby="join-heading" noValidate>
      <h2 id="join-heading" className="text-2xl font-semibold">
        {t("joinHeading")}
      </h2>
      <p className="mt-1 text-slate-300">{t("joinLead")}</p>
      <label htmlFor="code" className="mt-5 block font-medium">
        {t("roomCode")}
      </label>
      <input
        id="code"
        name="code"
        value={code}
        onChange={(e) => setCode(e.target.value)}
        autoCapitalize="characters"
        autoComplete="off"
        spellCheck={false}
        inputMode="text"
        maxLength={12}
        placeholder="K7QX3M"
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? "join-error" : undefined}
        data-testid="join-code"
        className="mt-2 w-full rounded-lg border border-slate-600 bg-slate-950 px-3 py-3 font-mono text-2xl uppercase tracking-[0.3em]"
      />
      <label htmlFor="nickname" className="mt-4 block font-medium">
        {common("nickname")} <span className="font-normal text-slate-400">{common("optional")}</span>
      </label>
      <input
        id="nickname"
        name="nickname"
        value={name}
        maxLength={32}
        onChange={(e) => setName(e.target.value)}
        autoComplete="nickname"
        className="mt-2 w-full rounded-lg border border-slate-600 bg-slate-950 px-3 py-3 text-lg"
      />
      <button
        type="submit"
        data-testid="join-submit"
        className="mt-5 w-full rounded-lg bg-emerald-400 px-4 py-3 text-lg font-semibold text-slate-950 hover:bg-emerald-300"
      >
        {t("join")}
      </button>
      {error && (
        <p id="join-error" role="alert" className="mt-3 text-rose-300">
          {error}
        </p>
      )}
    </form>
  );
}
