import { lookalikeKey } from "../text";
import { own } from "./reducer";
import type { SessionState } from "./types";
import type { PresenceView } from "./views";

/**
 * The teacher's list of students, sent apart from the session snapshot: whole
 * once (on join and on resync), then as the rows that changed. A class of
 * 5,000 costs the console a few hundred bytes per join, not the whole list.
 */

/** One student as the console lists them: the current row, whatever changed (a join, a rename, a removal, presence). */
export interface RosterRow {
  id: string;
  nickname: string;
  /** 1-based join order: tells apart students whose names look the same. */
  number: number;
  connected: boolean;
  /** Removed by the teacher: listed apart so they can be let back in. */
  removed: boolean;
}

/**
 * The whole roster. `epoch` names the room instance that counts `rev` (a room
 * reloaded after a restart or an owner change starts a new count), so a
 * console never applies changes counted from another base.
 */
export interface RosterFull {
  epoch: string;
  rev: number;
  rows: RosterRow[];
}

/** The rows that changed between two revisions of one epoch. */
export interface RosterChanges {
  epoch: string;
  /** The revision the changes apply to; a console holding another one asks for the whole roster again. */
  from: number;
  to: number;
  rows: RosterRow[];
}

/** A row marked when another listed (not removed) student's name looks the same on screen. */
export interface ListedStudent extends RosterRow {
  lookalike: boolean;
}

/** One participant's current row; `number` is their place in join order (the room keeps it). */
export function rosterRow(state: SessionState, id: string, number: number, presence: Pick<PresenceView, "isConnected">): RosterRow | null {
  const p = own(state.participants, id);
  if (!p) return null;
  return { id, nickname: p.nickname, number, connected: !p.removed && presence.isConnected(id), removed: p.removed };
}

/** Every participant ever joined, in join order. */
export function rosterRows(state: SessionState, presence: Pick<PresenceView, "isConnected">): RosterRow[] {
  return Object.values(state.participants).map((p, i) => ({
    id: p.id,
    nickname: p.nickname,
    number: i + 1,
    connected: !p.removed && presence.isConnected(p.id),
    removed: p.removed,
  }));
}

/**
 * The listed students (not removed), each marked when another one's name looks
 * the same (same letters, case, width or script look-alikes), and the removed ones, both in join order.
 */
export function splitRoster(rows: Iterable<RosterRow>): { listed: ListedStudent[]; removed: RosterRow[] } {
  const present: RosterRow[] = [];
  const removed: RosterRow[] = [];
  for (const row of rows) (row.removed ? removed : present).push(row);
  const byNumber = (a: RosterRow, b: RosterRow) => a.number - b.number;
  present.sort(byNumber);
  removed.sort(byNumber);
  const keys = present.map((p) => lookalikeKey(p.nickname));
  const seen = new Map<string, number>();
  for (const k of keys) seen.set(k, (seen.get(k) ?? 0) + 1);
  return { listed: present.map((p, i) => ({ ...p, lookalike: (seen.get(keys[i]) ?? 0) > 1 })), removed };
}

/**
 * A console's copy with the changes applied when they follow on from what it
 * holds; unchanged when they are older than it (sent before the whole roster it
 * holds was taken); `null` when they leave a gap (a missed message, another
 * epoch): then it asks for the whole roster again.
 */
export function applyRosterChanges<R extends { epoch: string; rev: number; rows: ReadonlyMap<string, RosterRow> }>(
  roster: R,
  changes: RosterChanges,
): R | { epoch: string; rev: number; rows: Map<string, RosterRow> } | null {
  if (changes.epoch === roster.epoch && changes.to <= roster.rev) return roster;
  if (changes.epoch !== roster.epoch || changes.from !== roster.rev) return null;
  const rows = new Map(roster.rows);
  for (const row of changes.rows) rows.set(row.id, row);
  return { epoch: roster.epoch, rev: changes.to, rows };
}
