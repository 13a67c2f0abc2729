import type { SessionEvent } from "../../lib/session/types";

/**
 * Where sessions and their event logs are kept. The room logic sees only this
 * interface, so a server-based store (Redis, Postgres) can replace SQLite
 * without touching the rules. Every method is synchronous for the embedded
 * store; `append` returns only once the event is durable.
 */
export interface SessionRecord {
  id: string;
  code: string;
  title: string;
  /** sha256 of the host key, hex; the key itself is never stored. */
  hostKeyHash: string;
  createdAt: number;
  endedAt: number | null;
}

export interface SessionSummary {
  id: string;
  code: string;
  title: string;
  createdAt: number;
  endedAt: number | null;
  status: "live" | "ended";
  lastEventAt: number;
  eventCount: number;
  participantCount: number;
  peakParticipants: number;
  pollCount: number;
}

export interface SessionStore {
  /** Creates the session with its first event (`session:created`, seq 1). Throws if the code is taken. */
  createSession(record: SessionRecord, created: SessionEvent): void;
  /** Appends one event; durable when it returns. */
  append(sessionId: string, event: SessionEvent): void;
  loadEvents(sessionId: string): SessionEvent[];
  getSession(id: string): SessionRecord | null;
  findByCode(code: string): SessionRecord | null;
  codeExists(code: string): boolean;
  /** Ids of sessions that have not ended, for recovery after a restart. */
  liveSessionIds(): string[];
  listSessions(ids?: readonly string[]): SessionSummary[];
  /** Ids of the sessions whose host key hashes to one of these. */
  sessionIdsByHostKeyHash(hashes: readonly string[]): string[];
  /** Peak concurrent participants is presence, not an event; the room reports it. */
  notePeakParticipants(sessionId: string, peak: number): void;
  saveParticipantToken(sessionId: string, participantId: string, tokenHash: string): void;
  findParticipantByToken(sessionId: string, tokenHash: string): string | null;
  close(): void;
}
