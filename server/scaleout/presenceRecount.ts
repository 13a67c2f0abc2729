import { log } from "../logger";
import type { RoomRegistry } from "../rooms/registry";
import { errorMessage } from "../../lib/errors";
import type { PresenceBoard } from "./presenceBoard";
import { RECOUNT_DELAY_MS } from "./timing";

/**
 * The owner's side of presence: the rooms held on this node take their count
 * of who is connected from every node's figures (server/scaleout/presenceBoard.ts),
 * soon after a node says a session's sockets changed, and now and then anyway.
 */

export interface PresenceRecountOptions {
  rooms: RoomRegistry;
  board: PresenceBoard;
}

export class PresenceRecount {
  private readonly due = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly o: PresenceRecountOptions) {}

  /** A node says the sockets of a session changed: if its room is here, recount soon (one recount per burst). */
  soon(sessionId: string): void {
    if (!this.o.rooms.get(sessionId)) return;
    this.due.add(sessionId);
    this.timer ??= setTimeout(() => {
      this.timer = null;
      const ids = [...this.due];
      this.due.clear();
      for (const id of ids) void this.recount(id);
    }, RECOUNT_DELAY_MS);
  }

  /** Recounts every room held here, whether or not a node said anything changed. */
  all(): void {
    for (const room of this.o.rooms.all()) void this.recount(room.id);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
  }

  private async recount(sessionId: string): Promise<void> {
    if (!this.o.rooms.get(sessionId)) return;
    try {
      const figure = await this.o.board.count(sessionId);
      // The room may have been dropped or replaced meanwhile: count into the one there is now.
      this.o.rooms.get(sessionId)?.presence.reset(figure.participants, figure.watchers, figure.projectors, figure.lookingBack);
    } catch (err) {
      log.warn("presence recount failed", { sessionId, error: errorMessage(err) });
    }
  }
}
