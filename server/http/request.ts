import type { IncomingMessage, ServerResponse } from "node:http";
import { MAX_HTTP_BODY_BYTES } from "../../lib/constants";
import { addressOf } from "../edge/rateLimit";
import { HttpError } from "./httpError";

/** Reading a request and writing an answer: what every HTTP route shares (the API, accounts, lessons, sessions). */

export function clientAddress(req: IncomingMessage, trustProxy = false): string {
  return addressOf(req.socket.remoteAddress, req.headers["x-forwarded-for"], trustProxy);
}

/** `application/json`, optionally with a charset parameter; nothing else (a browser sends text/plain cross-site). */
export function isJsonMediaType(header: string | undefined): boolean {
  if (!header) return false;
  const [type, ...params] = header.split(";").map((p) => p.trim().toLowerCase());
  return type === "application/json" && params.every((p) => /^charset=("?)utf-8\1$/.test(p));
}

/** The JSON body of a POST. Every POST must say `Content-Type: application/json`, even with no body. */
export async function readJsonBody(req: IncomingMessage, maxBytes: number = MAX_HTTP_BODY_BYTES): Promise<unknown> {
  if (!isJsonMediaType(req.headers["content-type"])) {
    throw new HttpError(415, "BAD_REQUEST", "Send the request with Content-Type: application/json.");
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer | string>) {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size > maxBytes) throw new HttpError(413, "PAYLOAD_TOO_LARGE", `The body is larger than ${maxBytes} bytes.`);
      chunks.push(bytes);
    }
  } catch (err) {
    if (err instanceof HttpError) throw err;
    // The client went away mid-body (a phone losing signal during a save), or Node cut a body too slow to finish
    // (HTTP_REQUEST_TIMEOUT_MS, answered 408 by Node itself): nobody is waiting for an answer, and it is no
    // server fault to log as one.
    throw new HttpError(400, "BAD_REQUEST", "The request was cut off before its body arrived.");
  }
  const raw = Buffer.concat(chunks).toString("utf8").trim();
  if (raw === "") return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    throw new HttpError(400, "BAD_REQUEST", "The body is not valid JSON.");
  }
}

/** A minimal page for errors that happen before Next.js (which would otherwise answer them with a 500). */
export function sendHtml(res: ServerResponse, status: number, title: string, message: string): void {
  const escape = (t: string) => t.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
  const html = `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escape(title)}</title><body style="font:1.25rem system-ui;background:#020617;color:#e2e8f0;padding:2rem"><h1>${escape(title)}</h1><p>${escape(message)}</p><p><a style="color:#7dd3fc" href="/">Start page</a></p></body></html>`;
  res.statusCode = status;
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Content-Length", Buffer.byteLength(html));
  res.end(html);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendJsonText(res, status, JSON.stringify(body));
}

/** JSON already serialised (an export rendered off the event loop). */
export function sendJsonText(res: ServerResponse, status: number, json: string): void {
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Content-Length", Buffer.byteLength(json));
  res.end(json);
}
