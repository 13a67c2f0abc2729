/**
 * The bounds a session puts on what one address can write into it, beside
 * the per-participant ones in lib/constants.ts. A student's script can mint
 * many identities from one address, so bounds per participant alone let one
 * address fill the teacher's approval queue and the session's question cap
 * (issue 28: 110 identities, 262 pending questions in under 2 s).
 * Addresses are facts the server brings in (the room keeps them in memory,
 * never in the log); a replay has none and is bounded by what was logged.
 */

/**
 * Questions one student may have waiting for the teacher's approval at once:
 * the asking allowance's burst (RATE_LIMITS.questions), so a student asks a
 * few, then waits for the teacher.
 */
export const MAX_PENDING_QUESTIONS_PER_PARTICIPANT = 3;

/**
 * Questions the students who joined from one address may have waiting at
 * once, all together: a class behind one NAT address asks a handful at a
 * time, and a script's identities, whatever their number, hold at most this
 * much of the queue and of the session's cap (MAX_QUESTIONS_PER_SESSION), so
 * students elsewhere still ask. Hidden questions and those of removed
 * students do not count: the teacher's one action frees the address.
 */
export const MAX_PENDING_QUESTIONS_PER_ADDRESS = 30;

/**
 * New participants one address may add to one session, ever (the room's
 * memory: a restart starts the count again). Twice the 1,000-phone lecture
 * hall behind one NAT address the limits are sized for: a school's address
 * must not be shut out, so this bounds what a script costs the session
 * (tokens and joins on disk), and the question bounds above keep its
 * identities from drowning the class.
 */
export const MAX_IDENTITIES_PER_ADDRESS = 2_000;
