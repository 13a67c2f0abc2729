import { isRerunnable } from "../../lib/protocol";
import { UnavailableError, type LocalGateway } from "../rooms/gateway";
import { assertNever } from "../../lib/assertNever";
import { log } from "../logger";
import { newId } from "../secrets";
import { LostOwnershipError, StoreInDoubtError, StoreUnavailableError } from "../store/types";
import { errorMessage, toError } from "../../lib/errors";
import { OrderedQueue } from "./orderedQueue";
import { timeForward } from "../ops/metrics";
import { NotOwner, type SessionOwnership } from "./ownership";
import type { Call, Method, Results, RpcRequest, RpcResponse, RpcTransport } from "./rpc";
import { RETRY_PAUSE_MS, attemptMs, pause } from "./timing";
import type { VoteFold } from "./voteFold";

/**
 * Runs each call on its session's owner: here, or forwarded over RPC to the
 * node that owns it, taking over from an owner that is gone; and, as the
 * owner, runs what other nodes forward here.
 *
 * Order: each sender's calls run one at a time in the order they arrived
 * (OrderedQueue), on the caller's node (server/scaleout/clusterGateway.ts) and
 * again on the owner. A command that may have run on an owner that then went
 * silent is never run again elsewhere (it could apply twice) unless the
 * command table says it can be (rerunnable): it is answered UNCONFIRMED, and
 * the takeover's fence keeps it from landing after anything that runs on the
 * new owner. A call that certainly did not run is answered UNAVAILABLE.
 */

/** What became of one call so far: the node that may have run it (null: certainly none). */
export interface Progress {
  mayHaveRunOn: string | null;
}

/** How a call is routed: its deadline (ms since the epoch), its sender's queue ('' for none), and what became of it. */
export interface RouteOptions {
  deadline: number;
  sender: string;
  progress: Progress;
  /**
   * Whether whoever sent the call is still there to be answered (its socket
   * still connected), asked before every attempt. A call read from a
   * connection its client has given up on (a node resuming from a freeze
   * reads what was sent to it meanwhile) is not started: the client has sent
   * later ones through another node, and this one would land after them.
   */
  wanted?: () => boolean;
}

export interface CallRouterOptions {
  nodeId: string;
  local: LocalGateway;
  ownership: SessionOwnership;
  rpc: RpcTransport;
  nodeTtlMs: number;
  /** The votes other nodes took: folded before what must follow them (./voteFold.ts). */
  votes: VoteFold;
}

export class CallRouter {
  /** Calls run here as the owner: one at a time per sender, in arrival order. */
  private readonly ownerTurns = new OrderedQueue();

  constructor(private readonly o: CallRouterOptions) {}

  async routeTyped<C extends Call>(sessionId: string, call: C, how: RouteOptions): Promise<Results[C["method"]]> {
    // What an owner answers is what runLocal returns for that method, on this version of the code.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
    return (await this.route(sessionId, call, how)) as Results[C["method"]];
  }

  /**
   * Runs a call on the session's owner (here, or over RPC) before the
   * deadline, taking over from an owner that is gone. Throws UnavailableError:
   * UNAVAILABLE when the call certainly did not run, UNCONFIRMED when it may have.
   */
  private async route(sessionId: string, call: Call, how: RouteOptions): Promise<unknown> {
    const { deadline, sender, progress, wanted } = how;
    const { nodeId, ownership, rpc } = this.o;
    // One id for every attempt, so the owner can tell a resend from a new call.
    const requestId = newId();
    while (Date.now() < deadline) {
      let owner: string;
      try {
        owner = await ownership.ownerOf(sessionId);
      } catch (err) {
        if (!asUnavailable(err)) throw err;
        // Redis is unreachable, or the owner record kept moving: nothing was sent. Look again shortly.
        await pause(RETRY_PAUSE_MS, deadline);
        continue;
      }
      if (progress.mayHaveRunOn !== null && progress.mayHaveRunOn !== owner) {
        // It may have run on the old owner, which can no longer write: running it here could apply it twice.
        if (!rerunnable(call)) throw new UnavailableError("UNCONFIRMED");
        progress.mayHaveRunOn = null;
      }
      if (wanted && !wanted()) throw new UnavailableError(progress.mayHaveRunOn ? "UNCONFIRMED" : "UNAVAILABLE");
      if (owner === nodeId) {
        try {
          return await this.runAsOwner(sessionId, call, sender, deadline, progress);
        } catch (err) {
          if (!(err instanceof NotOwner)) throw err;
          // Nothing ran (or its write was refused): ask again who owns it.
          progress.mayHaveRunOn = null;
          continue;
        }
      }
      const waitMs = Math.min(attemptMs(this.o.nodeTtlMs), deadline - Date.now());
      // From the moment it is sent it may run there, even if the sender's deadline passes before the answer comes
      // back: whoever answers the sender meanwhile must say UNCONFIRMED, never UNAVAILABLE.
      progress.mayHaveRunOn = owner;
      const response = await timeForward(rpc.call(owner, { id: requestId, from: nodeId, sessionId, sender, deadline, call }, waitMs));
      switch (response.status) {
        case "ok":
          return response.result;
        case "notOwner":
          progress.mayHaveRunOn = null;
          ownership.forgetCachedOwner(sessionId);
          continue;
        case "expired":
          progress.mayHaveRunOn = null;
          throw new UnavailableError("UNAVAILABLE");
        case "failed":
          if (response.code === "INTERNAL") throw new Error(`the owner failed: ${response.message}`);
          // The owner's own word: UNAVAILABLE when it certainly did not run it there.
          if (response.code === "UNAVAILABLE") progress.mayHaveRunOn = null;
          throw new UnavailableError(response.code, response.message);
        case "unsent":
          progress.mayHaveRunOn = null;
          await pause(RETRY_PAUSE_MS, deadline);
          continue;
        case "timeout":
        case "unknown":
          // It may be running there (progress says so already). Resending the same id is safe (the owner answers a
          // resend with the first answer); running it anywhere else is not, unless that owner says it never ran it.
          ownership.forgetCachedOwner(sessionId);
          await pause(RETRY_PAUSE_MS, deadline);
          continue;
        default:
          assertNever(response);
      }
    }
    throw new UnavailableError(progress.mayHaveRunOn ? "UNCONFIRMED" : "UNAVAILABLE");
  }

  /** A call another node forwarded here: run it if this node owns its session, and say what became of it. */
  async answer(request: RpcRequest): Promise<RpcResponse> {
    const { id, sessionId, call, sender, deadline } = request;
    // The caller has given up (it sat in a frozen node's buffer, say): starting it now could only surprise.
    if (Date.now() >= deadline) return { id, status: "expired" };
    const progress: Progress = { mayHaveRunOn: null };
    try {
      if ((await this.o.ownership.ownerOf(sessionId)) !== this.o.nodeId) return { id, status: "notOwner" };
      return { id, status: "ok", result: await this.runAsOwner(sessionId, call, sender, deadline, progress) };
    } catch (err) {
      if (err instanceof NotOwner) return { id, status: "notOwner" };
      const unavailable = asUnavailable(err);
      if (unavailable) return { id, status: "failed", code: unavailable.code, message: unavailable.message };
      log.error("a forwarded call failed", { sessionId, method: call.method, error: toError(err).stack });
      return { id, status: "failed", code: "INTERNAL", message: errorMessage(err) };
    }
  }

  /** Runs a call here as the session's owner, after the same sender's earlier calls. */
  private runAsOwner(sessionId: string, call: Call, sender: string, deadline: number, progress: Progress): Promise<Results[Method]> {
    const { ownership } = this.o;
    const run = async () => {
      await ownership.confirm(sessionId, deadline);
      if (call.method === "command") progress.mayHaveRunOn = this.o.nodeId;
      try {
        return await this.o.votes.around(sessionId, call, () => this.runLocal(call));
      } catch (err) {
        if (!(err instanceof LostOwnershipError)) throw err;
        // Its write was refused, so nothing of it was written: run it wherever the session is owned now.
        ownership.refused(sessionId, err);
        throw new NotOwner();
      }
    };
    if (!sender) return run();
    return this.ownerTurns.run(sender, deadline, run, () => {
      throw new UnavailableError(progress.mayHaveRunOn ? "UNCONFIRMED" : "UNAVAILABLE");
    });
  }

  private runLocal(call: Call): Promise<Results[Method]> {
    const { local } = this.o;
    switch (call.method) {
      case "join":
        return local.join(call.args[0]);
      case "command":
        return local.command(call.args[0], call.args[1]);
      case "view":
        return local.view(call.args[0]);
      default:
        return assertNever(call);
    }
  }
}

/**
 * Whether a call that may have run on a silent owner can run again on the new
 * one without doing anything twice: a resync; a join that brings its identity
 * (a returning student's token, the teacher's key; a new student's second run
 * would make a second student); a command the table marks rerunnable
 * (lib/session/commands.ts: it names where to go, not a move from where things are).
 */
function rerunnable(call: Call): boolean {
  switch (call.method) {
    case "view":
      return true;
    case "join":
      return call.args[0].role !== "student" || call.args[0].token !== undefined;
    case "command":
      return isRerunnable(call.args[1].event);
    default:
      return assertNever(call);
  }
}

/** Redis unreachable, or an answer not confirmed in time: the call's outcome, as the code the client gets. */
export function asUnavailable(err: unknown): UnavailableError | null {
  if (err instanceof UnavailableError) return err;
  if (err instanceof StoreUnavailableError) return new UnavailableError("UNAVAILABLE");
  // A read (or a claim) that was not confirmed changed nothing a client was told about.
  if (err instanceof StoreInDoubtError) return new UnavailableError("UNAVAILABLE");
  return null;
}
