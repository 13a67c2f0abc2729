import type { SessionEvent } from "../../lib/session/types";

/**
 * What appending events changes in a session's summary (SessionSummary): its
 * counts, when it last moved, and when it ended. This is the one place that
 * rule lives. Both stores keep the result beside the session's record as they
 * write (SQLite once per session per batch, Redis in the event's own script),
 * so listing sessions reads one row or hash each instead of counting a log
 * that a vote storm makes 10,000 events long.
 */
export interface SummaryDelta {
  /** Events appended. */
  events: number;
  /** Students admitted (`participant:joined`). */
  participants: number;
  /** Polls opened (`poll:opened`; a reopened round is the same poll). */
  polls: number;
  /** The last event's time; 0 while no event is counted. */
  lastEventAt: number;
  /** When an event ended the session; null when none did. */
  endedAt: number | null;
}

/** A delta that changes nothing yet. */
export function emptyDelta(): SummaryDelta {
  return { events: 0, participants: 0, polls: 0, lastEventAt: 0, endedAt: null };
}

// The event types the summary follows, checked against the log's union (a renamed event fails to compile here).
const JOINED = "participant:joined" satisfies SessionEvent["type"];
const POLL_OPENED = "poll:opened" satisfies SessionEvent["type"];
const ENDED = "session:ended" satisfies SessionEvent["type"];

/** What the summary reads of an event: its type (a string, so a migration can pass a stored row's) and time. */
export interface CountedEvent {
  type: string;
  at: number;
}

/**
 * Adds one appended event to `delta`, in place. It runs once per event on the
 * append path (10,000 votes a second in the bench), so it only bumps fields:
 * no allocation, no I/O.
 */
export function addEvent(delta: SummaryDelta, event: CountedEvent): void {
  delta.events += 1;
  delta.lastEventAt = event.at;
  if (event.type === JOINED) delta.participants += 1;
  else if (event.type === POLL_OPENED) delta.polls += 1;
  else if (event.type === ENDED) delta.endedAt = event.at;
}

/** The summary of a session whose log is `events` (a session's first event, a migration's backfill). */
export function deltaOf(events: Iterable<CountedEvent>): SummaryDelta {
  const delta = emptyDelta();
  for (const event of events) addEvent(delta, event);
  return delta;
}
