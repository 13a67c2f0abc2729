/**
 * Who is connected to one room now: students by participant id (a student
 * with two tabs counts once), and watchers (the teacher's and projector
 * sockets). Presence is ephemeral: it is never logged, and after a restart it
 * is rebuilt from the sockets that come back.
 */
export class Presence {
  private readonly connections = new Map<string, number>();
  /**
   * Connected students looking back at an earlier step, with the sockets
   * (tabs) that are: a student with two tabs looks back while either does.
   * A socket's entry goes when it says "live" again or disconnects.
   */
  private readonly lookingBack = new Map<string, Set<string>>();
  private students = 0;
  private watchers = 0;
  private projectors = 0;
  private peak = 0;
  /** When the room last became empty (or was loaded); for the idle sweep. */
  private quietSince: number;

  constructor(
    private readonly now: () => number,
    /** Something the console shows changed: this student came or went, or (no id) a projector view opened or closed. */
    private readonly changed: (participantId?: string) => void,
    /** A new highest number of students connected at once (kept with the session, best effort). */
    private readonly newPeak: (peak: number) => void,
    /** The number of students looking back changed. */
    private readonly lookBackChanged: () => void = () => undefined,
  ) {
    this.quietSince = now();
  }

  get connectedCount(): number {
    return this.students;
  }
  /** Teacher and projector sockets. */
  get watcherCount(): number {
    return this.watchers;
  }
  get projectorCount(): number {
    return this.projectors;
  }
  /** Students looking back at an earlier step now: a count for the console, never who. */
  get lookingBackCount(): number {
    return this.lookingBack.size;
  }

  /** One socket (tab) of a connected student says it is looking back (true) or back to live (false). */
  lookBack(participantId: string, socket: string, lookingBack: boolean): void {
    if (lookingBack && !this.isConnected(participantId)) return;
    const before = this.lookingBack.size;
    const sockets = this.lookingBack.get(participantId);
    if (lookingBack) {
      if (sockets) sockets.add(socket);
      else this.lookingBack.set(participantId, new Set([socket]));
    } else if (sockets?.delete(socket) && sockets.size === 0) {
      this.lookingBack.delete(participantId);
    }
    if (this.lookingBack.size !== before) this.lookBackChanged();
  }
  get anyoneConnected(): boolean {
    return this.watchers > 0 || this.students > 0;
  }
  /** Since when nobody has been connected (meaningful while `anyoneConnected` is false). */
  get idleSince(): number {
    return this.quietSince;
  }

  /** How many sockets (tabs) a student has connected now. */
  socketsOf(participantId: string): number {
    return this.connections.get(participantId) ?? 0;
  }

  isConnected(participantId: string): boolean {
    return (this.connections.get(participantId) ?? 0) > 0;
  }

  /** A student's socket connected. */
  connect(participantId: string): void {
    const n = this.connections.get(participantId) ?? 0;
    this.connections.set(participantId, n + 1);
    if (n > 0) return;
    this.students += 1;
    this.notePeak();
    this.changed(participantId);
  }

  /** A student's socket left; what it was looking at goes with it. */
  disconnect(participantId: string, socket: string): void {
    this.lookBack(participantId, socket, false);
    const n = this.connections.get(participantId) ?? 0;
    if (n > 1) {
      this.connections.set(participantId, n - 1);
      return;
    }
    this.connections.delete(participantId);
    if (n !== 1) return;
    if (this.lookingBack.delete(participantId)) this.lookBackChanged();
    this.students -= 1;
    this.noteQuiet();
    this.changed(participantId);
  }

  /** A teacher or projector socket: not students, but they keep a room from counting as idle. */
  watcherJoined(role: "host" | "projector"): void {
    this.watchers += 1;
    if (role === "projector") {
      this.projectors += 1;
      this.changed();
    }
  }

  watcherLeft(role: "host" | "projector"): void {
    this.watchers = Math.max(0, this.watchers - 1);
    if (role === "projector") {
      this.projectors = Math.max(0, this.projectors - 1);
      this.changed();
    }
    this.noteQuiet();
  }

  /**
   * Replace everything with a fresh count: in a cluster the owner counts the
   * sockets every node reports (a dead node's students do not linger, a
   * silent node's are kept for a while), and who is looking back from each
   * node's own sockets. The console is told when the count or who is
   * connected changed.
   */
  reset(participantIds: readonly string[], watchers: number, projectors: number, lookingBack: readonly string[] = []): void {
    const before = new Set(this.connections.keys());
    const projectorsBefore = this.projectors;
    const wasConnected = this.anyoneConnected;
    this.connections.clear();
    for (const id of participantIds) this.connections.set(id, (this.connections.get(id) ?? 0) + 1);
    this.students = this.connections.size;
    // Each node says which of its sockets look back; someone whose sockets are all gone is not looking at anything.
    const lookingBefore = this.lookingBack.size;
    this.lookingBack.clear();
    for (const id of lookingBack) if (this.connections.has(id)) this.lookingBack.set(id, new Set(["node"]));
    if (this.lookingBack.size !== lookingBefore) this.lookBackChanged();
    this.watchers = watchers;
    this.projectors = projectors;
    this.notePeak();
    // Only when the room empties now: recounting an empty room must not restart its idle time.
    if (wasConnected) this.noteQuiet();
    for (const id of this.connections.keys()) if (!before.delete(id)) this.changed(id);
    for (const id of before) this.changed(id);
    if (this.projectors !== projectorsBefore) this.changed();
  }

  private notePeak(): void {
    if (this.students <= this.peak) return;
    this.peak = this.students;
    this.newPeak(this.peak);
  }

  private noteQuiet(): void {
    if (!this.anyoneConnected) this.quietSince = this.now();
  }
}
