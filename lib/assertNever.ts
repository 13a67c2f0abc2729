/** The end of every switch over a union: adding a member without handling it is a type error here. */
export function assertNever(value: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
}
