/**
 * Where each student of a room last joined from, the students each address
 * holds, and how many new students each address added: one address's
 * identities share the bounds on new students and on questions waiting for
 * approval (lib/session/limits.ts). Memory only, never logged: an address
 * says nothing the class needs, and a restart forgets them like every limiter.
 */
export class RoomAddresses {
  private readonly addressOf = new Map<string, string>();
  private readonly studentsAt = new Map<string, Set<string>>();
  private readonly addedFrom = new Map<string, number>();

  /** How many new students this address has added to the room. */
  added(address: string | undefined): number {
    return address === undefined ? 0 : (this.addedFrom.get(address) ?? 0);
  }

  /** A new student came from this address. */
  countNew(address: string): void {
    this.addedFrom.set(address, this.added(address) + 1);
  }

  /** The student is (now) at this address. */
  note(participantId: string, address: string): void {
    const before = this.addressOf.get(participantId);
    if (before === address) return;
    if (before !== undefined) this.studentsAt.get(before)?.delete(participantId);
    this.addressOf.set(participantId, address);
    let here = this.studentsAt.get(address);
    if (!here) this.studentsAt.set(address, (here = new Set()));
    here.add(participantId);
  }

  /** The students who joined from the same address as this one, it included (only it when not known). */
  sameAs(participantId: string): ReadonlySet<string> {
    const address = this.addressOf.get(participantId);
    return (address !== undefined && this.studentsAt.get(address)) || new Set([participantId]);
  }
}
