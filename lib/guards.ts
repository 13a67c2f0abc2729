/** A plain object whose fields can be read one by one (checked, then read as unknown: never cast to a shape). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A string field of an object read from data (a Kubernetes object, a pasted event), or "" when absent. */
export function stringAt(value: unknown, ...path: string[]): string {
  let at: unknown = value;
  for (const key of path) at = isRecord(at) ? at[key] : undefined;
  return typeof at === "string" ? at : "";
}

/** The keys of an object literal, typed as its keys (Object.keys returns string[] for any object). */
export function keysOf<T extends object>(record: T): (keyof T)[] {
  // Only for records built in this code base from a literal, whose keys are exactly its type's keys.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
  return Object.keys(record) as (keyof T)[];
}
