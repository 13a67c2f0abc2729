import { ADDRESSES, JOIN_WINDOW, label, REPS, STEPS, VOTE_SPREAD_MS, WORKERS } from "./cli";
import { liveNodeIds, sessionOwners } from "./clusterState";
import { log } from "./log";
import { now, type ServerKind } from "./messages";
import { busyShare, cpuMs, machineTicks } from "./proc";
import { clusterInfo, startServer } from "./servers";
import { rssAfterGc, serverCpuMs } from "./serverUsage";
import { maxOf, median, p99 } from "./stats";
import { connectTeacher, type Teacher } from "./teacher";
import { sleep } from "./wait";
import { Worker } from "./workers";

/**
 * One run of one cell: a fresh server of one kind, N students on fresh client
 * workers, and the phases measured in order (warm-up, join storm, memory, step
 * fan-out, vote burst). The section numbers are the report's table numbers.
 */

export interface ScenarioResult {
  kind: ServerKind;
  n: number;
  /** 1-based: the run of this cell (--reps) */
  run: number;
  join: { ok: number; failed: number; errors: Record<string, number>; allMs: number; medianMs: number; p99Ms: number };
  /** RSS after a forced GC (rssAfterGc); the *NoGc figures are the readings just before it */
  memory: {
    beforeBytes: number;
    afterBytes: number;
    perStudentBytes: number;
    beforeNoGcBytes: number;
    afterNoGcBytes: number;
    gcSettleMs: number[];
    gcSettled: boolean;
  };
  /**
   * CPU time (utime + stime, /proc/<pid>/stat) over a phase. Server: the server
   * process (cluster: every node and redis-server); workers: the client worker
   * processes; machineBusy: the share of all cores busy (every process).
   */
  cpu: {
    joinServerMs: number;
    joinServerUsPerStudent: number;
    stepServerMs: number;
    stepServerMsPerStep: number;
    stepWorkersMsPerStep: number;
    stepMachineBusy: number;
    voteServerMs: number;
    voteServerUsPerVote: number;
    voteWorkersUsPerVote: number;
    voteMachineBusy: number;
  };
  fanout: {
    steps: number;
    lastMs: number[];
    medianStudentMs: number[];
    missing: number;
    lastMedian: number;
    lastP99: number;
    medianStudentMedian: number;
  };
  vote: {
    sent: number;
    acked: number;
    ackErrors: Record<string, number>;
    ackTimeouts: number;
    ackMedianMs: number;
    ackP99Ms: number;
    ackMaxMs: number;
    finalTotal: number | null;
    lost: number;
    closeToAllMs: number;
    /** The first student's copy: how long the server took to start sending (the rest is the fan-out). */
    closeToFirstMs: number;
    studentsWithFinal: number;
    studentsWrongTotal: number;
    studentsMissingFinal: number;
    tallyMessages: number;
    talliesPerStudent: number;
    talliesMaxPerStudent: number;
    pollSeconds: number;
    talliesPerStudentPerSecond: number;
    disconnects: Record<string, number>;
  } | null;
  errors: string[];
}

export async function runScenario(kind: ServerKind, n: number, run: number): Promise<ScenarioResult> {
  const errors: string[] = [];
  const tag = `${label(kind)} N=${n} run ${run}/${REPS}`;
  const [server, workers] = await Promise.all([
    startServer(kind),
    (async () => {
      const ws = Array.from({ length: Math.min(WORKERS, n) }, (_, i) => new Worker(i));
      await Promise.all(ws.map((w) => w.next("ready", 30_000)));
      return ws;
    })(),
  ]);
  let teacher: Teacher | null = null;
  try {
    teacher = await connectTeacher(server);
    const t = teacher;
    const stepCommand = (stepIndex: number) => (kind !== "bare" ? t.command("step:go", { stepIndex }) : t.command("step", { stepIndex }));

    // Warm-up: the code paths the measurement uses, then let the heap settle.
    await stepCommand(1);
    await stepCommand(0);
    await sleep(1_000);
    const before = await rssAfterGc(server);
    const workersCpu = () => workers.reduce((sum, w) => sum + cpuMs(w.proc.pid!), 0);

    // Cluster: node 1 must own the session (the teacher joined there first), so
    // students on the other nodes exercise the forwarding and the adapter.
    const cluster = clusterInfo.get(server);
    let owner: string | null = null;
    if (cluster) {
      const owners = await sessionOwners(cluster.redisUrl);
      owner = owners.length === 1 ? owners[0] : null;
      if (owner !== cluster.nodeIds[0])
        errors.push(`cluster: the session's owner is ${JSON.stringify(owners)}, not node 1 (${cluster.nodeIds[0]})`);
      log(`${tag}: session owned by node ${cluster.nodeIds.indexOf(owner ?? "") + 1} of ${cluster.nodeIds.length}`);
    }

    // --- 4. Join storm
    log(`${tag}: join storm`);
    const shares = workers.map((_, i) => Math.floor(n / workers.length) + (i < n % workers.length ? 1 : 0));
    const joinTimeoutMs = 30_000 + n * 20;
    const joinCpu0 = serverCpuMs(server);
    const joinStart = now();
    let offset = 0;
    workers.forEach((w, i) => {
      w.send({
        cmd: "join",
        kind,
        urls: server.urls,
        code: t.code,
        offset,
        count: shares[i],
        total: n,
        addresses: ADDRESSES,
        window: JOIN_WINDOW,
        timeoutMs: joinTimeoutMs,
      });
      offset += shares[i];
    });
    const joined = await Promise.all(workers.map((w) => w.next("joined", joinTimeoutMs + 10_000)));
    const joinServerMs = serverCpuMs(server) - joinCpu0;
    const firstAt = joined.flatMap((j) => j.firstSnapshotAt).map((at) => at - joinStart);
    const joinErrors: Record<string, number> = {};
    for (const j of joined) for (const [k, v] of Object.entries(j.errors)) joinErrors[k] = (joinErrors[k] ?? 0) + v;
    const joinedCount = joined.reduce((s, j) => s + j.ok, 0);
    const join = {
      ok: joinedCount,
      failed: joined.reduce((s, j) => s + j.failed, 0),
      errors: joinErrors,
      allMs: maxOf(firstAt),
      medianMs: median(firstAt),
      p99Ms: p99(firstAt),
    };
    if (join.failed > 0) errors.push(`join: ${join.failed} of ${n} students failed: ${JSON.stringify(joinErrors)}`);
    if (joinedCount === 0) throw new Error(`no student could join: ${JSON.stringify(joinErrors)}\n${server.output()}`);

    // --- 3. Memory, after every student joined and presence broadcasts settled
    await sleep(1_500);
    const after = await rssAfterGc(server);
    const memory = {
      beforeBytes: before.bytes,
      afterBytes: after.bytes,
      perStudentBytes: (after.bytes - before.bytes) / joinedCount,
      beforeNoGcBytes: before.beforeGcBytes,
      afterNoGcBytes: after.beforeGcBytes,
      gcSettleMs: [before.settleMs, after.settleMs],
      gcSettled: before.settled && after.settled,
    };
    if (!memory.gcSettled) errors.push(`memory: the RSS did not settle within 5 s of the forced GC (read anyway)`);

    // --- 1. Step fan-out
    log(`${tag}: ${STEPS} steps`);
    const lastMs: number[] = [];
    const medianStudentMs: number[] = [];
    let missing = 0;
    const stepTimeoutMs = 15_000;
    const stepCpu0 = { server: serverCpuMs(server), workers: workersCpu(), machine: machineTicks() };
    for (let seq = 0; seq < STEPS; seq++) {
      const stepIndex = seq % 2 === 0 ? 1 : 2; // alternate so every command changes the step
      workers.forEach((w) => w.send({ cmd: "armStep", seq, stepIndex, timeoutMs: stepTimeoutMs }));
      await Promise.all(workers.map((w) => w.next("armed", 10_000)));
      const sentAt = now();
      const ack = stepCommand(stepIndex);
      const reports = await Promise.all(workers.map((w) => w.next("step", stepTimeoutMs + 5_000)));
      const res = await ack;
      if (!res?.ok) errors.push(`step ${seq}: ${JSON.stringify(res)}`);
      const latencies = reports.flatMap((r) => r.times).map((at) => at - sentAt);
      const missed = reports.reduce((s, r) => s + r.missing, 0);
      missing += missed;
      if (missed > 0 || !res?.ok) log(`${tag}: step ${seq}: ${missed} students missed it; ack ${JSON.stringify(res)}`);
      if (latencies.length > 0) {
        lastMs.push(maxOf(latencies));
        medianStudentMs.push(median(latencies));
      }
      await sleep(100);
    }
    const stepServerMs = serverCpuMs(server) - stepCpu0.server;
    const stepWorkersMs = workersCpu() - stepCpu0.workers;
    const stepMachineBusy = busyShare(stepCpu0.machine, machineTicks());
    if (missing > 0) errors.push(`fan-out: ${missing} snapshot receipts missing over ${STEPS} steps`);
    const fanout = {
      steps: STEPS,
      lastMs,
      medianStudentMs,
      missing,
      lastMedian: median(lastMs),
      lastP99: p99(lastMs),
      medianStudentMedian: median(medianStudentMs),
    };

    // --- 2. Vote burst
    log(`${tag}: vote burst`);
    let vote: ScenarioResult["vote"] = null;
    let pollId: string;
    let options: string[];
    if (kind !== "bare") {
      const opened = await t.command("poll:open", { kind: "next-step" });
      if (!opened?.ok) throw new Error(`poll:open: ${JSON.stringify(opened)}`);
      pollId = (opened.data as { pollId: string }).pollId;
      // One process sends the teacher's patch with the new poll before the ack. A
      // cluster node delivers broadcasts (even to its own sockets) only after the
      // Redis adapter's XADD returns, so there the ack can come first: wait for it.
      const openedAt = Date.now();
      while (t.latestSnapshot?.poll?.id !== pollId && Date.now() - openedAt < 5_000) await sleep(5);
      if (t.latestSnapshot?.poll?.id === pollId && Date.now() - openedAt > 1)
        log(`${tag}: the teacher's poll snapshot came ${Date.now() - openedAt} ms after the poll:open ack`);
      const poll = t.latestSnapshot?.poll;
      if (!poll || poll.id !== pollId || !poll.options) throw new Error("the teacher did not receive the opened poll");
      options = poll.options.map((o) => o.id);
      const shown = await t.command("results:show", { visible: true });
      if (!shown?.ok) throw new Error(`results:show: ${JSON.stringify(shown)}`);
    } else {
      const opened = await t.command("open", {});
      ({ pollId, options } = opened.data as { pollId: string; options: string[] });
    }
    await sleep(500); // the open/visible patches reach the class
    const startAt = now() + 200;
    const ackTimeoutMs = 30_000;
    const voteCpu0 = { server: serverCpuMs(server), workers: workersCpu(), machine: machineTicks() };
    workers.forEach((w) => w.send({ cmd: "vote", pollId, options, startAt, spreadMs: VOTE_SPREAD_MS, total: n, ackTimeoutMs }));
    const voted = await Promise.all(workers.map((w) => w.next("voted", 200 + VOTE_SPREAD_MS + ackTimeoutMs + 10_000)));
    const voteServerMs = serverCpuMs(server) - voteCpu0.server;
    const voteWorkersMs = workersCpu() - voteCpu0.workers;
    const voteMachineBusy = busyShare(voteCpu0.machine, machineTicks());
    const acked = voted.reduce((s, v) => s + v.ok, 0);
    const sent = voted.reduce((s, v) => s + v.sent, 0);
    const ackErrors: Record<string, number> = {};
    for (const v of voted) for (const [k, c] of Object.entries(v.errors)) ackErrors[k] = (ackErrors[k] ?? 0) + c;
    const finalTimeoutMs = 20_000;
    workers.forEach((w) => w.send({ cmd: "armFinal", pollId, expected: acked, upTo: sent, timeoutMs: finalTimeoutMs }));
    await Promise.all(workers.map((w) => w.next("armed", 10_000)));
    const closedAt = now();
    const closeAck = kind !== "bare" ? t.command("poll:close", { pollId }) : t.command("close", { pollId });
    const finals = await Promise.all(workers.map((w) => w.next("final", finalTimeoutMs + 5_000)));
    const closed = await closeAck;
    if (!closed?.ok) errors.push(`poll close: ${JSON.stringify(closed)}`);
    const totals = [...new Set(finals.flatMap((f) => f.totals))];
    const finalTotal = totals.length === 1 ? totals[0] : totals.length ? Math.max(...totals) : null;
    const finalTimes = finals.flatMap((f) => f.times).map((at) => at - closedAt);
    const tallyMessages = finals.reduce((s, f) => s + f.tallies, 0);
    const pollSeconds = (closedAt - startAt) / 1000;
    vote = {
      sent,
      acked,
      ackErrors,
      ackTimeouts: voted.reduce((s, v) => s + v.timeouts, 0),
      ackMedianMs: median(voted.flatMap((v) => v.ackMs)),
      ackP99Ms: p99(voted.flatMap((v) => v.ackMs)),
      ackMaxMs: maxOf(voted.flatMap((v) => v.ackMs)),
      finalTotal,
      lost: sent - (finalTotal ?? 0),
      closeToAllMs: maxOf(finalTimes),
      closeToFirstMs: finalTimes.reduce((m, x) => Math.min(m, x), Infinity),
      studentsWithFinal: finals.reduce((s, f) => s + f.matched + f.mismatched, 0),
      studentsWrongTotal: finals.reduce((s, f) => s + f.mismatched, 0),
      studentsMissingFinal: finals.reduce((s, f) => s + f.missing, 0),
      tallyMessages,
      talliesPerStudent: tallyMessages / joinedCount,
      talliesMaxPerStudent: Math.max(...finals.map((f) => f.talliesMaxPerStudent)),
      pollSeconds,
      talliesPerStudentPerSecond: tallyMessages / joinedCount / pollSeconds,
      disconnects: {},
    };
    for (const f of voted) for (const [k, c] of Object.entries(f.disconnects)) vote.disconnects[k] = (vote.disconnects[k] ?? 0) + c;
    if (totals.length > 1) errors.push(`vote: students saw different final totals ${JSON.stringify(totals)}`);
    if (vote.lost !== 0) errors.push(`vote: ${vote.lost} votes lost (sent ${sent}, final total ${finalTotal})`);
    if (Object.keys(ackErrors).length || vote.ackTimeouts)
      errors.push(`vote: ack errors ${JSON.stringify(ackErrors)}, ${vote.ackTimeouts} ack timeouts`);
    if (vote.studentsMissingFinal || vote.studentsWrongTotal)
      errors.push(`vote: ${vote.studentsMissingFinal} students without the final tally, ${vote.studentsWrongTotal} with a wrong total`);
    const dropped = Object.values(vote.disconnects).reduce((a, b) => a + b, 0);
    if (dropped) errors.push(`${dropped} students were disconnected during the run: ${JSON.stringify(vote.disconnects)}`);

    if (cluster) {
      const owners = await sessionOwners(cluster.redisUrl).catch((err: Error) => [`? ${err.message}`]);
      if (owners.length !== 1 || owners[0] !== owner)
        errors.push(`cluster: the session changed owner during the run: ${owner} → ${JSON.stringify(owners)}`);
      const live = await liveNodeIds(cluster.redisUrl).catch(() => []);
      if (live.length !== cluster.nodeIds.length)
        errors.push(`cluster: ${live.length} of ${cluster.nodeIds.length} nodes heartbeating at the end`);
    }

    const cpu = {
      joinServerMs,
      joinServerUsPerStudent: (joinServerMs * 1000) / joinedCount,
      stepServerMs,
      stepServerMsPerStep: stepServerMs / STEPS,
      stepWorkersMsPerStep: stepWorkersMs / STEPS,
      stepMachineBusy,
      voteServerMs,
      // Per vote sent: every one was handled, also those whose answer came back UNCONFIRMED.
      voteServerUsPerVote: (voteServerMs * 1000) / Math.max(1, sent),
      voteWorkersUsPerVote: (voteWorkersMs * 1000) / Math.max(1, sent),
      voteMachineBusy,
    };
    return { kind, n, run, join, memory, cpu, fanout, vote, errors };
  } catch (err) {
    throw new Error(`${tag}: ${(err as Error).message}\n--- server output (tail) ---\n${server.output().slice(-4_000)}`, { cause: err });
  } finally {
    const t0 = Date.now();
    teacher?.socket.close();
    await Promise.all(workers.map((w) => w.close()));
    await server.stop();
    log(`${tag}: stopped in ${Date.now() - t0} ms`);
  }
}
