import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as constants from "../../lib/constants";
import * as protocol from "../../lib/protocol";
import { MarkdownDoc, codeSpansIn, type Table } from "./markdown";
import { ROOT, discriminants, memberNames, numericConstants, sourceFiles, sourceText, stringLiterals } from "./sourceFacts";

/**
 * docs/protocol.md is what people writing another client read, and nothing
 * else would notice it drifting from the code (a review once found it wrong
 * in three of five spot checks). This holds its event names, error codes and
 * quoted numbers to what the code says at run time. Each failure names the
 * document's line and what the code has instead.
 *
 * The document's side of the contract, kept on purpose:
 * - the tables under "Client → server events" and "Server → client events"
 *   start with an `event` column, one event per row; a student-only command
 *   says `(student)` after its name, one any role may send `(any)`;
 * - the "Error codes" section has a `code | message` table of `ERROR_CODES`
 *   and a `REST code` table of the REST API's own codes;
 * - a number quoted for a constant follows its name: `NAME` (16,384),
 *   `NAME_MS` (10 s), `RATE_LIMITS.votes` (10 burst, refills 4/s);
 * - "Several processes (Redis)" lists, in one parenthesis after "second run
 *   changes nothing", the commands the command table marks `rerunnable`;
 * - transcripts write `→ who event …` and `← who event …` (or `← who ack …`).
 */

const DOC = "docs/protocol.md";
const doc = new MarkdownDoc(DOC, fs.readFileSync(path.join(ROOT, DOC), "utf8"));

// Found by name under these folders, so moving a declaration between files changes nothing here.
const PROTOCOL_FILES = sourceFiles("lib/protocol", false);
const LIB_FILES = sourceFiles("lib");

const ROLES = ["host", "projector", "student"];
/** `domain:verb`: how every event is named (STYLE.md). Not a URL (`https://`), not a storage key (`classroom:token:{code}`). */
const EVENT_NAME = /(?<![\w.:/@#-])([a-z][a-zA-Z]*:[a-z][a-zA-Z]*)(?![\w:/-])/g;
const CONSTANT_NAME = /^[A-Z][A-Z0-9_]*(\.[a-zA-Z][a-zA-Z0-9]*)*$/;
const ERROR_CODE_NAME = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$|^[A-Z]{4,}$/;

const clientEvents = () => memberNames("ClientToServerEvents", PROTOCOL_FILES);
const serverEvents = () => memberNames("ServerToClientEvents", PROTOCOL_FILES);
/** The durable events of the log (`poll:voted`): the document names them where it says what is logged. */
const loggedEvents = () => discriminants("SessionEventBody", LIB_FILES);
const errorCodes = () => Object.keys(protocol.ERROR_CODES);
const restCodes = () => stringLiterals("RestErrorCode", LIB_FILES);

/** The command table: who may send each command, and whether a cluster may run it again. */
const commandTable = (): Record<string, { roles: readonly string[]; rerunnable: boolean }> => protocol.COMMANDS;

/** The one table under `section` whose first column is headed `first`. */
function tableOf(section: string, first: string): Table {
  const tables = doc.tablesUnder(section).filter((t) => t.header[0] === first);
  if (tables.length !== 1) throw new Error(`${DOC}: expected one table headed "${first}" under "${section}", found ${tables.length}`);
  return tables[0];
}

/** Each row's event (the first code span of its first cell), where it is, and the rest of that cell. */
function eventRows(section: string) {
  return tableOf(section, "event").rows.map((r) => {
    const name = codeSpansIn(r.cells[0])[0] ?? "";
    return { name, line: r.line, note: r.cells[0].replace(`\`${name}\``, "").trim() };
  });
}

/** Both directions: which documented events are missing from the code and which code events are undocumented. */
function compareEvents(section: string, code: string[], map: string) {
  const rows = eventRows(section);
  const documented = new Set(rows.map((r) => r.name));
  return [
    ...rows.filter((r) => !code.includes(r.name)).map((r) => `${doc.at(r.line)}: \`${r.name}\` is documented but is not in ${map}`),
    ...code.filter((e) => !documented.has(e)).map((e) => `${map} has \`${e}\`, which the table under "${section}" does not document`),
  ];
}

describe("docs/protocol.md: events", () => {
  it("documents every client → server event, and only those", () => {
    expect(compareEvents("Client → server events", clientEvents(), "ClientToServerEvents")).toEqual([]);
  });

  it("documents every server → client event, and only those", () => {
    expect(compareEvents("Server → client events", serverEvents(), "ServerToClientEvents")).toEqual([]);
  });

  it("says who may send each command as the command table does", () => {
    const rules = commandTable();
    const problems = eventRows("Client → server events").flatMap(({ name, line, note }) => {
      if (!Object.hasOwn(rules, name)) return [];
      const documented = note.includes("(any)") ? ROLES : note.includes("(student)") ? ["student"] : ["host"];
      const code = [...rules[name].roles].sort();
      return documented.join() === code.join() ? [] : [`${doc.at(line)}: \`${name}\` is documented for ${documented.join(", ")}; the code lets ${code.join(", ")} send it`];
    });
    expect(problems).toEqual([]);
  });

  it("names no event the code does not have", () => {
    const known = new Set([...clientEvents(), ...serverEvents(), ...loggedEvents()]);
    const problems = doc.prose.flatMap(({ line, text }) =>
      [...text.matchAll(EVENT_NAME)]
        .map((m) => m[1])
        .filter((name) => !known.has(name))
        .map((name) => `${doc.at(line)}: \`${name}\` is neither a socket event (lib/protocol) nor a logged event (SessionEventBody)`),
    );
    expect(problems).toEqual([]);
  });

  it("shows only real events in its transcripts, each in its direction", () => {
    const client = new Set(clientEvents());
    const server = new Set(serverEvents());
    const problems: string[] = [];
    for (const fence of doc.fences) {
      fence.lines.forEach(({ line, text }, i) => {
        const m = /^(→|←)\s+(\S+)\s+(\S+)/.exec(text);
        if (!m) return;
        const [, arrow, who, event] = m;
        if (arrow === "←" && event !== "ack" && !server.has(event)) problems.push(`${doc.at(line)}: ← \`${event}\` is not in ServerToClientEvents`);
        if (arrow === "→" && !client.has(event)) {
          // A made-up name is fine where the transcript shows it refused.
          const reply = fence.lines.slice(i + 1).find((l) => l.text.startsWith(`← ${who} `) && /\back\b/.test(l.text));
          if (!reply?.text.includes('"UNKNOWN_EVENT"')) problems.push(`${doc.at(line)}: → \`${event}\` is not in ClientToServerEvents`);
        }
      });
    }
    expect(problems).toEqual([]);
  });
});

describe("docs/protocol.md: scale-out", () => {
  it("lists the commands a new owner may run again as the command table marks them", () => {
    const table = commandTable();
    const rerunnable = Object.keys(table)
      .filter((name) => table[name].rerunnable === true)
      .sort();
    // "… changes nothing after the first … (`step:go`, …)": the events named in that parenthesis.
    const line = doc.section("Several processes (Redis)").find((l) => l.text.includes("second run changes nothing"));
    if (!line) throw new Error(`${DOC}: "Several processes (Redis)" no longer says which commands run again on a new owner`);
    const listed = [...(/changes nothing[^(]*\(([^)]*)\)/.exec(line.text)?.[1] ?? "").matchAll(EVENT_NAME)].map((m) => m[1]).sort();
    expect(listed, `${doc.at(line.line)}: the commands run again after a takeover (the command table's \`rerunnable\`)`).toEqual(rerunnable);
  });
});

describe("docs/protocol.md: error codes", () => {
  it("lists every code of ERROR_CODES with its message, and no other", () => {
    const codes = protocol.ERROR_CODES as Record<string, string>;
    const rows = tableOf("Error codes", "code").rows.map((r) => ({ line: r.line, code: codeSpansIn(r.cells[0])[0] ?? r.cells[0], message: r.cells[1] }));
    const documented = new Set(rows.map((r) => r.code));
    const problems = [
      ...rows.flatMap((r) => {
        if (!Object.hasOwn(codes, r.code)) return [`${doc.at(r.line)}: \`${r.code}\` is not in ERROR_CODES`];
        return r.message === codes[r.code] ? [] : [`${doc.at(r.line)}: \`${r.code}\` says "${r.message}"; ERROR_CODES says "${codes[r.code]}"`];
      }),
      ...errorCodes()
        .filter((c) => !documented.has(c))
        .map((c) => `ERROR_CODES has \`${c}\`, which the "Error codes" table does not list`),
    ];
    expect(problems).toEqual([]);
  });

  it("lists the REST API's own codes as RestErrorCode has them", () => {
    const rows = tableOf("Error codes", "REST code").rows.map((r) => ({ line: r.line, code: codeSpansIn(r.cells[0])[0] ?? r.cells[0] }));
    const code = restCodes();
    const problems = [
      ...rows.filter((r) => !code.includes(r.code)).map((r) => `${doc.at(r.line)}: \`${r.code}\` is not a RestErrorCode`),
      ...code.filter((c) => !rows.some((r) => r.code === c)).map((c) => `RestErrorCode has \`${c}\`, which the "REST code" table does not list`),
    ];
    expect(problems).toEqual([]);
  });

  it("uses only real codes wherever a table has a column of codes", () => {
    const socket = new Set(errorCodes());
    const rest = new Set(restCodes());
    const problems = doc.tables.flatMap((table) => {
      const isRest = table.sections.includes("REST API") || table.header[0].startsWith("REST");
      const columns = table.header.flatMap((h, i) => (/\bcodes?\b/.test(h) ? [i] : []));
      return table.rows.flatMap((r) =>
        columns.flatMap((i) =>
          codeSpansIn(r.cells[i] ?? "")
            .filter((s) => ERROR_CODE_NAME.test(s) && !(socket.has(s) || (isRest && rest.has(s)) || resolve(s)))
            .map((s) => `${doc.at(r.line)}: \`${s}\` is not ${isRest ? "an error code (ERROR_CODES or RestErrorCode)" : "in ERROR_CODES"}`),
        ),
      );
    });
    expect(problems).toEqual([]);
  });

  it("quotes only messages the server really sends", () => {
    const source = sourceText(["lib", "server"]);
    const codes = protocol.ERROR_CODES as Record<string, string>;
    const problems: string[] = [];
    for (const { line, text } of doc.prose) {
      for (const [, message] of text.matchAll(/"([^"]+)"/g)) {
        // A sentence a person reads: "The connection request was malformed." (not a field value, not a label).
        if (!/^[A-Z]/.test(message) || !/[.…!]$/.test(message) || message.split(" ").length < 3) continue;
        // "step N" and <name> stand for what the server fills in (`${…}` in its source).
        const pattern = message
          .split(/\b(?:N)\b|<[a-z]+>/)
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
          .join("\\$\\{[^}]+\\}");
        if (!new RegExp(pattern).test(source)) problems.push(`${doc.at(line)}: "${message}" is not a message in lib/ or server/`);
      }
    }
    // The transcripts' replies, {"code":"…","message":"…"}, hold what the server filled in: match its strings and templates.
    const templates = [...source.matchAll(/"((?:[^"\\\n]|\\.)*)"|`([^`]*)`/g)].map((m) => {
      const text = m[1] ?? m[2];
      const parts = text.split(/\$\{[^}]*\}/).map((p) => p.replace(/\\(.)/g, "$1").replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
      return new RegExp(`^${parts.join(".+")}$`);
    });
    for (const fence of doc.fences) {
      for (const { line, text } of fence.lines) {
        for (const [, code, raw] of text.matchAll(/"code":"([A-Z_]+)","message":("(?:[^"\\]|\\.)*")/g)) {
          const message = JSON.parse(raw) as string;
          if (!Object.hasOwn(codes, code)) problems.push(`${doc.at(line)}: \`${code}\` is not in ERROR_CODES`);
          else if (message !== codes[code] && !templates.some((t) => t.test(message))) {
            problems.push(`${doc.at(line)}: "${message}" is not a message the server sends`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("docs/protocol.md: limits and constants", () => {
  it("quotes every named constant with the value the code has", () => {
    expect(quotedConstants().problems).toEqual([]);
  });

  it("quotes every rate limit, frame limit and size cap", () => {
    const required = [
      ...Object.keys(constants.RATE_LIMITS).map((k) => `RATE_LIMITS.${k}`),
      ...Object.keys(constants.FRAME_LIMITS).map((k) => `FRAME_LIMITS.${k}`),
      ...[constants, protocol].flatMap((m) => Object.keys(m).filter((k) => /^(DEFAULT_)?MAX_|_MAX$/.test(k))),
      "PROTOCOL_VERSION",
    ];
    const { checked } = quotedConstants();
    const missing = [...new Set(required)].filter((name) => !checked.has(name));
    expect(
      missing.map((name) => `${name} is not quoted with its value in ${DOC} (write \`${name}\` (value) where the limit is described)`),
    ).toEqual([]);
  });

  it("gives the protocol version in its title", () => {
    const title = doc.headings[0]?.title ?? "";
    expect(title, `${DOC}'s title`).toBe(`Wire protocol (version ${protocol.PROTOCOL_VERSION})`);
    const stated = [...doc.fences.flatMap((f) => f.lines), ...doc.prose].flatMap(({ line, text }) =>
      [...text.matchAll(/(?:\bv: |"v":)(\d+)/g)].map((m) => ({ line, v: Number(m[1]) })),
    );
    expect(stated.filter((s) => s.v !== protocol.PROTOCOL_VERSION).map((s) => `${doc.at(s.line)}: v ${s.v}`)).toEqual([]);
  });
});

describe("docs/protocol.md: names", () => {
  it("names only files that exist", () => {
    const problems = doc
      .codeSpans()
      .filter((s) => /^(lib|server|app|components|docs|deploy|scripts|tests)\/[\w./-]+\.(ts|tsx|md)$/.test(s.text))
      .filter((s) => !fs.existsSync(path.join(ROOT, s.text)))
      .map((s) => `${doc.at(s.line)}: \`${s.text}\` does not exist`);
    expect(problems).toEqual([]);
  });

  it("names only constants, codes and settings the code has", () => {
    const source = sourceText(["lib", "server"]);
    const problems = doc
      .codeSpans()
      .filter((s) => CONSTANT_NAME.test(s.text) && s.text.includes("_"))
      .filter((s) => !new RegExp(`\\b${s.text.split(".")[0]}\\b`).test(source))
      .map((s) => `${doc.at(s.line)}: \`${s.text}\` appears nowhere in lib/ or server/`);
    expect(problems).toEqual([]);
  });
});

// ---------------------------------------------------------------------------
// Constants the document quotes

const fromSource = lazy(() => numericConstants([...sourceFiles("lib"), ...sourceFiles("server")]));

/** A constant's value: lib/constants, then lib/protocol (as the code exports them), then a literal in the source. */
function resolve(name: string): { value: unknown; as: string } | null {
  const [head, ...keys] = name.split(".");
  for (const module of [constants, protocol] as Record<string, unknown>[]) {
    // An environment variable quoted with its default: `MAX_CONNECTIONS_PER_ADDRESS` (default 4,000).
    for (const exported of [head, `DEFAULT_${head}`]) {
      if (!(exported in module)) continue;
      let value = module[exported];
      for (const key of keys) value = isRecord(value) && Object.hasOwn(value, key) ? value[key] : undefined;
      if (value !== undefined) return { value, as: [exported, ...keys].join(".") };
    }
  }
  // A number the server keeps to itself (PACED_FANOUT_MIN): the one `const` of that name, folded from literals.
  const literal = keys.length === 0 ? fromSource().get(head) : undefined;
  return literal?.length === 1 ? { value: literal[0], as: head } : null;
}

/** Every "`NAME` (value)" in the document, compared with the code; `checked` holds the constants it quotes. */
const quotedConstants = lazy(() => {
  const codes = new Set([...errorCodes(), ...restCodes()]);
  const problems: string[] = [];
  const checked = new Set<string>();
  for (const span of doc.codeSpans()) {
    // An error code followed by "(404)" is a status, not a constant's value.
    if (!CONSTANT_NAME.test(span.text) || codes.has(span.text)) continue;
    const quoted = quotedAfter(span.after);
    if (quoted === null) continue;
    const where = `${doc.at(span.line)}: \`${span.text}\` (${quoted})`;
    const found = resolve(span.text);
    if (!found) {
      problems.push(`${where}: no constant of that name in lib/constants, lib/protocol or the source of lib/ and server/`);
      continue;
    }
    checked.add(found.as);
    const problem = compareQuoted(span.text, quoted, found.value);
    if (problem) problems.push(`${where}: ${problem} (${found.as})`);
  }
  return { problems, checked };
});

// ---------------------------------------------------------------------------
// Reading a quoted value

const NUMBER = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`;
const UNIT = String.raw`ms|s|min|h|KiB|MiB`;
const TIME_MS: Record<string, number> = { ms: 1, s: 1_000, min: 60_000, h: 3_600_000 };
const SIZE: Record<string, number> = { KiB: 1024, MiB: 1024 * 1024 };

/** The text right after a name that quotes its value: ` (…)` or `: …`; null when nothing is quoted there. */
function quotedAfter(after: string): string | null {
  // The parenthesis may run on to the next line of the paragraph.
  const paren = /^ \(([^)]*)(?:\)|$)/.exec(after);
  const text = (paren ?? /^: ([^|;]*)/.exec(after))?.[1].replace(/\*\*/g, "").trim();
  if (text === undefined) return null;
  // A literal is the whole parenthesis: `PROTOCOL_VERSION` (`1`).
  if (paren && /^`[^`]+`$/.test(text)) return text;
  // Otherwise a number first; "(see below)" or ": the text…" quote nothing.
  return new RegExp(`^(default )?(${NUMBER})`).test(text) ? text : null;
}

function toNumber(text: string): number {
  return Number(text.replace(/,/g, ""));
}

/** A number with its unit, in the unit the constant's name says (`_MS`: milliseconds); sizes in bytes. */
function amount(name: string, value: string, unit: string | undefined): number | string {
  const n = toNumber(value);
  const last = name.split(".").at(-1) ?? name;
  const inMs = /(_MS|Ms)$/.test(last);
  if (unit && unit in SIZE) return n * SIZE[unit];
  if (unit && unit in TIME_MS) return inMs ? n * TIME_MS[unit] : `a duration (${value} ${unit}) for a name that is not in milliseconds`;
  if (inMs) return `no unit: say "${value} ms" or "${value} s"`;
  return n;
}

/** What is wrong with a quoted value, or null when it is the code's. */
function compareQuoted(name: string, quoted: string, actual: unknown): string | null {
  const literal = /^`([^`]+)`/.exec(quoted);
  if (literal) {
    const text = literal[1];
    let value: unknown = text;
    try {
      value = JSON.parse(text);
    } catch {
      // A string written bare: `ABCDEFGHJKMNPQRSTUVWXYZ23456789`.
    }
    return JSON.stringify(value) === JSON.stringify(actual) ? null : `the code has ${JSON.stringify(actual)}`;
  }
  if (isRecord(actual) && typeof actual.capacity === "number" && typeof actual.refillPerSecond === "number") {
    const bucket = new RegExp(
      `^(${NUMBER})\\s*(${UNIT})?\\b[^,]*? burst, refills (?:(${NUMBER})\\s*(${UNIT})?\\b[^/]*?/s|one every (${NUMBER}) s)`,
    ).exec(quoted);
    if (!bucket) return `say a bucket as "C burst, refills R/s" (the code has ${actual.capacity} and ${actual.refillPerSecond}/s)`;
    const capacity = amount(name, bucket[1], bucket[2]);
    const refill = bucket[5] !== undefined ? 1 / toNumber(bucket[5]) : amount(name, bucket[3], bucket[4]);
    if (typeof capacity === "string") return capacity;
    if (typeof refill === "string") return refill;
    return capacity === actual.capacity && refill === actual.refillPerSecond
      ? null
      : `the code has ${actual.capacity} burst, refilling ${actual.refillPerSecond}/s`;
  }
  const m = new RegExp(`^(?:default )?(${NUMBER})\\s*(${UNIT})?(?![\\w/])`).exec(quoted);
  if (!m) return "not a value this test can read";
  const value = amount(name, m[1], m[2]);
  if (typeof value === "string") return value;
  return value === actual ? null : `the code has ${JSON.stringify(actual)}`;
}

function lazy<T>(compute: () => T): () => T {
  let value: { done: T } | null = null;
  return () => (value ??= { done: compute() }).done;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
