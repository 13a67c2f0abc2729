import { promises as dns } from "node:dns";
import os from "node:os";

type Lookup = (name: string) => Promise<readonly { address: string }[]>;

const LOOKUP_TIMEOUT_MS = 800;
const REMEMBER_MS = 60_000;

/**
 * This machine's host name, when it is a name the classroom's browsers can
 * use instead of a raw address (`teacher-laptop.local:3000` reads better on a
 * projector than `192.0.2.2:48473`): the name, or its mDNS `.local` form,
 * must resolve to the very address the join link would use. A name that does
 * not resolve, resolves elsewhere, or takes long is not used. Answers are
 * remembered for a minute, so a join-info request waits on DNS at most once
 * a minute.
 */
export function createHostNames(hostname: string = os.hostname(), lookup: Lookup = (name) => dns.lookup(name, { all: true, family: 4 })) {
  const remembered = new Map<string, { name: string | null; until: number }>();
  const candidates =
    hostname && !/^(localhost|\d+\.\d+\.\d+\.\d+)$/i.test(hostname)
      ? hostname.includes(".")
        ? [hostname]
        : [hostname, `${hostname}.local`]
      : [];

  async function resolvesTo(name: string, address: string): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<readonly { address: string }[]>((resolve) => {
      timer = setTimeout(() => resolve([]), LOOKUP_TIMEOUT_MS);
    });
    try {
      const found = await Promise.race([lookup(name), timeout]);
      return found.some((a) => a.address === address);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    /** A host name that resolves to `address`, or null. */
    async nameFor(address: string | null | undefined, now = Date.now()): Promise<string | null> {
      if (!address || candidates.length === 0) return null;
      const known = remembered.get(address);
      if (known && known.until > now) return known.name;
      let name: string | null = null;
      for (const candidate of candidates) {
        if (await resolvesTo(candidate, address)) {
          name = candidate;
          break;
        }
      }
      remembered.set(address, { name, until: now + REMEMBER_MS });
      return name;
    },
  };
}
