import { AccountMenu } from "@/components/account/AccountMenu";
import { StartOrJoin } from "@/components/landing/StartOrJoin";
import { CARD_INTRO, CARD_TITLE } from "@/lib/lesson/card";

export default function HomePage() {
  return (
    <main className="mx-auto flex min-h-screen max-w-4xl flex-col justify-center gap-10 px-5 py-10">
      <AccountMenu here="/" />
      <header>
        <p className="text-sm font-semibold uppercase tracking-widest text-sky-300">Kubernetes storage, live</p>
        <h1 className="mt-2 text-4xl font-bold sm:text-5xl">{CARD_TITLE}</h1>
        <p className="mt-4 max-w-2xl text-lg text-slate-300">
          Step a whole class through how a PersistentVolumeClaim becomes a mounted disk. Every student&apos;s screen follows yours, and
          &ldquo;what happens next?&rdquo; polls let them predict each move before they see it.
        </p>
        <p className="mt-3 max-w-2xl text-slate-400">{CARD_INTRO}</p>
      </header>
      <StartOrJoin />
      <p className="text-slate-300">
        Teaching another topic?{" "}
        <a href="/lessons/edit" className="font-semibold text-sky-300 underline" data-testid="new-lesson">
          New lesson from a sequence diagram
        </a>{" "}
        (or see{" "}
        <a href="/lessons" className="text-sky-300 underline">
          your lessons
        </a>
        ).
      </p>
      <p className="text-slate-300">
        Looking for an earlier class?{" "}
        <a href="/sessions" className="font-semibold text-sky-300 underline">
          Saved sessions and replays
        </a>
      </p>
    </main>
  );
}
