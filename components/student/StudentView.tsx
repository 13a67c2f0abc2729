"use client";

import { useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import { studentTokenKey } from "@/components/live/storageKeys";
import { ErrorScreen } from "@/components/classroom/ErrorScreen";
import { useJoinInfo } from "@/components/classroom/useJoinInfo";
import { NICKNAME_MAX } from "@/lib/constants";
import { LanguageSwitch } from "@/components/i18n/LanguageSwitch";
import { roomCode } from "@/components/i18n/roomCode";
import { loadLiveScreen, useLiveScreen } from "./liveScreen";

/** After this many failed fetches the page also offers a reload (a server rebuilt since the form was loaded no longer has its chunk). */
const RELOAD_AFTER_FAILURES = 3;

/**
 * Everything after the join (the socket client, the lesson, the diagram, the
 * poll, the questions) is a chunk of its own, so the join form does not wait
 * for it (README, "Joins, idle schools and scaled-out votes"). This file imports nothing that reaches
 * lib/protocol/wire or lib/session: they would bring the lesson back in.
 * Until the chunk is here the page says what SessionGate says before the
 * first snapshot, or, once the network has dropped it, that it cannot reach
 * the server (the chunk is fetched again: components/student/liveScreen.ts).
 */
function Live({ code, nickname }: { code: string; nickname: string }) {
  const t = useTranslations("session");
  const { Screen, failures } = useLiveScreen();
  if (Screen) return <Screen code={code} nickname={nickname} />;
  // A reload keeps the name (or the token this browser holds): the student does not type it again.
  const again = `/join/${encodeURIComponent(code)}${nickname ? `?name=${encodeURIComponent(nickname)}` : ""}`;
  return (
    <main className="flex min-h-screen flex-col items-center justify-center gap-4 px-5" aria-busy="true">
      <p className="text-center text-xl text-slate-300" role="status">
        {failures ? t("unreachable") : t.rich("joining", { code, ...roomCode })}
      </p>
      {failures >= RELOAD_AFTER_FAILURES && (
        <a href={again} className="rounded-lg bg-sky-400 px-4 py-3 font-semibold text-slate-950">
          {t("reload")}
        </a>
      )}
    </main>
  );
}

/**
 * The student's phone: asks for an optional nickname unless the link carries
 * one (`?name=`) or this browser already joined (a reload keeps its identity).
 */
export function StudentView({ code, initialName }: { code: string; initialName: string | null }) {
  const [nickname, setNickname] = useState<string | null>(initialName);
  const [checked, setChecked] = useState(initialName !== null);

  // The live screen is fetched while the student reads the form and types a name, not after they tap Join.
  useEffect(() => void loadLiveScreen().catch(() => undefined), []);

  useEffect(() => {
    if (initialName !== null) return;
    let known: boolean;
    try {
      known = localStorage.getItem(studentTokenKey(code)) !== null;
    } catch {
      known = false;
    }
    if (known) setNickname("");
    setChecked(true);
  }, [code, initialName]);

  const exists = useJoinInfo(code, checked && nickname === null).status;
  if (!checked) return null;
  if (nickname === null) {
    if (exists === "checking") return null;
    if (exists === "missing")
      return <ErrorScreen error={{ code: "NO_SUCH_SESSION", message: "There is no session with that code." }} code={code} />;
    return <NicknameForm code={code} onJoin={setNickname} />;
  }
  return <Live code={code} nickname={nickname} />;
}

function NicknameForm({ code, onJoin }: { code: string; onJoin: (name: string) => void }) {
  const t = useTranslations("student");
  const common = useTranslations("common");
  const [name, setName] = useState("");
  return (
    <main className="mx-auto flex min-h-screen max-w-md flex-col justify-center px-5">
      <div className="mb-3 flex justify-end">
        <LanguageSwitch />
      </div>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onJoin(name.trim());
        }}
        className="space-y-4"
      >
        <h1 className="text-3xl font-bold">
          {t.rich("joinRoom", {
            code,
            room: (chunks) => (
              <span dir="ltr" translate="no" className="font-mono tracking-widest">
                {chunks}
              </span>
            ),
          })}
        </h1>
        <label htmlFor="nickname" className="block text-lg font-medium">
          {common("nickname")} <span className="font-normal text-slate-400">{common("optional")}</span>
        </label>
        <input
          id="nickname"
          value={name}
          maxLength={NICKNAME_MAX}
          onChange={(e) => setName(e.target.value)}
          autoComplete="nickname"
          className="w-full rounded-lg border border-slate-600 bg-slate-950 px-3 py-3 text-lg"
          data-testid="nickname"
        />
        <button
          type="submit"
          data-testid="join-submit"
          className="w-full rounded-lg bg-emerald-400 px-4 py-3 text-lg font-semibold text-slate-950"
        >
          {t("joinClass")}
        </button>
      </form>
    </main>
  );
}
