import { getScenario, VARIANTS_BY_MODE } from "../../lib/lesson/scenarios";
import { BINDING_MODES } from "../../lib/lesson/types";
import { POLL_DURATIONS_S } from "../../lib/constants";
import { ChaosClient, type Role } from "./client";
import type { CheckedClient, History } from "./history";
import type { Rng } from "./rng";

/**
 * A class of the chaos run and its scripts: a teacher who clicks through
 * steps, switches modes and runs polls (open, close, reveal) without waiting
 * for each answer, students who vote and change their votes, leave and come
 * back, newcomers, and a projector that watches. Every choice comes from the
 * seed; what the scripts see comes from their screens (the records the
 * server sent), as a person would see it.
 */

export interface ClassPlan {
  cls: number;
  /** Created on a node no fault touches, with every screen there: another's fault must not touch it. */
  sheltered: boolean;
  /** The node that creates the session, and so owns it first. */
  owner: number;
  /** The nodes its screens connect through. */
  nodes: readonly number[];
  students: number;
  /** Newcomers join during the run up to this many students. */
  maxStudents: number;
}

export interface ClassEnv {
  history: History;
  url: (node: number) => string;
  reachable: (node: number) => boolean;
  rng: Rng;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sleeps `ms`, or less if the run stops meanwhile (an arrival 40 s away must not hold up the end). */
async function wait(ms: number, running: () => boolean): Promise<void> {
  const end = Date.now() + ms;
  while (running() && Date.now() < end) await sleep(Math.min(250, end - Date.now()));
}

/** A student changes their vote at most this often per poll: under MAX_VOTES_PER_ROUND, so VOTE_LIMIT never decides. */
const VOTES_PER_POLL = 7;

export class Classroom {
  readonly students: ChaosClient[] = [];
  private readonly away = new Set<ChaosClient>();
  teacher!: ChaosClient;
  projector!: ChaosClient;
  session!: { id: string; code: string; hostKey: string };

  constructor(
    readonly plan: ClassPlan,
    private readonly env: ClassEnv,
  ) {}

  private client(name: string, role: Role): ChaosClient {
    const rng = this.env.rng.fork(`class ${this.plan.cls} ${name}`);
    return new ChaosClient({
      name: `c${this.plan.cls} ${name}`,
      cls: this.plan.cls,
      role,
      code: this.session.code,
      hostKey: this.session.hostKey,
      nodes: this.plan.nodes,
      first: rng.pick(this.plan.nodes),
      reachable: this.env.reachable,
      url: this.env.url,
      history: this.env.history,
      rng,
    });
  }

  /** Creates the session through its owner node and brings everyone in. */
  async open(): Promise<void> {
    const res = await fetch(`${this.env.url(this.plan.owner)}/api/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: `Chaos class ${this.plan.cls}${this.plan.sheltered ? " (sheltered)" : ""}` }),
    });
    if (res.status !== 201) throw new Error(`creating class ${this.plan.cls}: HTTP ${res.status} ${await res.text()}`);
    this.session = (await res.json()) as typeof this.session;
    this.env.history.sessions[this.plan.cls] = { id: this.session.id, code: this.session.code, sheltered: this.plan.sheltered };
    this.teacher = this.client("teacher", "host");
    this.projector = this.client("projector", "projector");
    for (let i = 0; i < this.plan.students; i++) this.students.push(this.client(`student ${i}`, "student"));
    await Promise.all([this.teacher, this.projector, ...this.students].map((c) => c.join()));
  }

  everyone(): ChaosClient[] {
    return [this.teacher, this.projector, ...this.students];
  }

  /** The screens that should be connected now (students who left are not). */
  present(): ChaosClient[] {
    return this.everyone().filter((c) => !this.away.has(c));
  }

  checked(): CheckedClient[] {
    return this.everyone().map((c) => ({ name: c.name, cls: this.plan.cls, role: c.o.role, participantId: c.participantId }));
  }

  /** Runs the scripts until `running` says stop. */
  async play(running: () => boolean): Promise<void> {
    const rng = this.env.rng.fork(`class ${this.plan.cls} arrivals`);
    const students = this.students.map((s) => this.learn(s, running));
    const arrivals = (async () => {
      while (running()) {
        await wait(rng.int(15_000, 40_000), running);
        if (!running() || this.students.length >= this.plan.maxStudents) continue;
        const s = this.client(`student ${this.students.length}`, "student");
        this.students.push(s);
        students.push(this.learn(s, running));
        void s.join();
      }
    })();
    await Promise.all([this.teach(running), arrivals]);
    await Promise.all(students);
  }

  /** Everyone who left comes back (the run's end: every screen must converge). */
  async rejoinAll(): Promise<void> {
    const back = [...this.away];
    this.away.clear();
    await Promise.all(back.map((s) => s.join()));
  }

  private async teach(running: () => boolean): Promise<void> {
    const t = this.teacher;
    const rng = this.env.rng.fork(`class ${this.plan.cls} teacher script`);
    let polls = 0;
    while (running()) {
      await sleep(rng.int(250, 1_200));
      const s = t.snapshot();
      // A teacher clicks on while answers are outstanding, up to a point.
      if (!running() || t.inFlight >= 3 || s?.audience !== "host") continue;
      const steps = getScenario(s.mode, s.variant).steps.length;
      const poll = s.poll;
      const choices: [() => unknown, number][] = [
        [() => t.send("step:go", { stepIndex: (s.stepIndex + rng.int(1, steps - 1)) % steps }), 4],
        [() => t.send("step:move", { delta: rng.pick([1, -1]) }), 4],
        [
          () => {
            const mode = rng.pick(BINDING_MODES);
            return t.send("mode:set", { mode, variant: rng.pick(VARIANTS_BY_MODE[mode]) });
          },
          1,
        ],
      ];
      if (poll?.status !== "open") {
        choices.push([
          () => {
            const durationS = rng.pick([0, 0, 15, 30].filter((d) => (POLL_DURATIONS_S as readonly number[]).includes(d)));
            if (rng.chance(0.6)) return t.send("poll:open", { kind: "next-step", durationS });
            const options = Array.from({ length: rng.int(2, 4) }, (_, i) => `Answer ${i + 1}`);
            return t.send("poll:open", {
              kind: "custom",
              question: `Question ${++polls} of class ${this.plan.cls}`,
              options,
              correctIndex: rng.chance(0.7) ? rng.int(0, options.length - 1) : null,
              durationS,
            });
          },
          2,
        ]);
      }
      if (poll?.status === "open") choices.push([() => t.send("poll:close", { pollId: poll.id }), 1.5]);
      if (poll?.status === "closed") choices.push([() => t.send("poll:reveal", { pollId: poll.id }), 2]);
      void rng.weighted(choices)();
    }
  }

  private async learn(s: ChaosClient, running: () => boolean): Promise<void> {
    const rng = this.env.rng.fork(`class ${this.plan.cls} ${s.name} script`);
    const sent = new Map<string, number>();
    while (running()) {
      await sleep(rng.int(400, 2_500));
      if (!running()) break;
      if (this.away.has(s)) {
        if (rng.chance(0.25)) {
          this.away.delete(s);
          void s.join();
        }
        continue;
      }
      if (rng.chance(0.02)) {
        s.leave();
        this.away.add(s);
        continue;
      }
      const poll = s.snapshot()?.poll;
      if (!poll || poll.status !== "open" || s.inFlight >= 2) continue;
      const key = `${poll.id}/${poll.round}`;
      const count = sent.get(key) ?? 0;
      if (count >= VOTES_PER_POLL) continue;
      const mine = s.myVote();
      const voted = mine?.pollId === poll.id && mine.round === poll.round && mine.optionId !== null;
      if (voted && !rng.chance(0.35)) continue;
      sent.set(key, count + 1);
      void s.send("poll:vote", { pollId: poll.id, optionId: rng.pick(poll.options).id }).then((op) => {
        // As the bundled poll card does: a vote that may have counted asks for the student's own records.
        if (op.reported?.code === "UNCONFIRMED") void s.send("session:sync", {});
      });
    }
  }
}
