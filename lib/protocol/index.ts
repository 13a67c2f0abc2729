/**
 * The wire contract between browsers and the server: socket.io event maps,
 * a zod schema for every client payload, the error codes and the protocol
 * version. Event names appear as string literals here and nowhere else.
 * docs/protocol.md describes the same for people writing other clients.
 *
 * Split in two so a page does not ship zod: ./wire (constants, types, event
 * maps; what browsers import) and ./schemas (zod; what the server parses with).
 */
export * from "./wire";
export * from "./schemas";
export * from "./rest";
export * from "./agreement";
export * from "./budgets";
