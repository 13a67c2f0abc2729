/**
 * The integration harness, in one import: a real server per file or per test
 * (`../support/testServer`), recording socket.io clients (`../support/testClient`)
 * and the outsider's raw tools, frames, HTTP and TCP by hand (`../support/rawWire`).
 * Importing it also silences the server's log.
 */
export * from "../support/testServer";
export * from "../support/testClient";
export * from "../support/rawWire";
