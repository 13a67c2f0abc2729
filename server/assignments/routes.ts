import type { IncomingMessage, ServerResponse } from "node:http";
import { assignmentCsv } from "../../lib/course/export";
import { ASSIGNMENT_TOKEN_HEADER } from "../../lib/course/rest";
import type { Account } from "../store/accounts";
import type { AssignmentStore } from "../store/assignments";
import { KeyedLimiter } from "../edge/rateLimit";
import { HttpError, methodNotAllowed } from "../http/httpError";
import { clientAddress, readJsonBody, sendJson } from "../http/request";
import { AuthError } from "../auth/errors";
import type { AssignmentService } from "./service";
import type { createResultsReader } from "./results";

/**
 * `/api/assignments…` and `/api/results…` (docs/protocol.md "Assignments").
 * A student's calls carry their token in a header; a teacher's need their
 * account. Each address has its own allowance, sized for a class on one
 * network stepping through at once.
 */

/** Per address: a class of 60 behind one NAT stepping and answering; a script hammering the store stops here. */
export const ASSIGNMENT_CALLS = { capacity: 300, refillPerSecond: 60 };

export interface AssignmentRouteDeps {
  service: AssignmentService;
  results: ReturnType<typeof createResultsReader>;
  store: AssignmentStore;
  accountOf: (req: IncomingMessage) => Promise<Account | null>;
  trustProxy: boolean;
  linkBase: (req: IncomingMessage) => Promise<string>;
}

function sendFile(res: ServerResponse, file: { filename: string; body: string }): void {
  res.statusCode = 200;
  res.setHeader("Content-Type", "text/csv; charset=utf-8");
  res.setHeader("Content-Disposition", `attachment; filename="${file.filename}"`);
  res.setHeader("Cache-Control", "no-store");
  res.end(file.body);
}

export function createAssignmentRoutes(deps: AssignmentRouteDeps) {
  const calls = new KeyedLimiter(ASSIGNMENT_CALLS);
  const { service } = deps;

  async function teacher(req: IncomingMessage): Promise<Account> {
    const account = await deps.accountOf(req);
    if (!account) throw new AuthError(401, "SIGNED_OUT");
    return account;
  }
  const tokenOf = (req: IncomingMessage) => {
    const v = req.headers[ASSIGNMENT_TOKEN_HEADER];
    return typeof v === "string" ? v : undefined;
  };

  /** Answers the request when it is for these paths; false otherwise. */
  return async function route(req: IncomingMessage, res: ServerResponse, path: string, url: URL): Promise<boolean> {
    const results = /^\/api\/results\/([^/]+)(?:\/(export))?$/.exec(path);
    const assignment = /^\/api\/assignments(?:\/([^/]+)(?:\/(start|me|answer|progress|export))?)?$/.exec(path);
    if (!results && !assignment) return false;
    const address = clientAddress(req, deps.trustProxy);
    if (!calls.take(address)) throw new HttpError(429, "RATE_LIMITED", "Too many requests. Wait a moment.");
    const method = req.method ?? "GET";

    if (results) {
      if (method !== "GET") throw methodNotAllowed(["GET"]);
      const [, lessonKey, sub] = results;
      const account = await teacher(req);
      if (!sub) sendJson(res, 200, await deps.results.results(account, lessonKey));
      else sendFile(res, await deps.results.exportCsv(account, lessonKey, url.searchParams.get("sheet")));
      return true;
    }

    const [, id, sub] = assignment!;
    if (!id) {
      if (method === "GET") sendJson(res, 200, { assignments: await service.list(await teacher(req)) });
      else if (method === "POST") {
        const account = await teacher(req);
        const created = await service.create(req, account, await readJsonBody(req));
        sendJson(res, 201, { ...created, url: `${await deps.linkBase(req)}${created.path}` });
      } else throw methodNotAllowed(["GET", "POST"], "Use GET to list your assignments or POST to make one.");
      return true;
    }
    switch (sub) {
      case undefined:
        // The link's view is public; the teacher's (progress, closing, deleting) needs the account.
        if (method === "GET") {
          if (url.searchParams.get("view") === "progress") {
            const progress = await service.progress(await teacher(req), id);
            sendJson(res, 200, { ...progress, url: `${await deps.linkBase(req)}/a/${progress.id}` });
          } else sendJson(res, 200, await service.view(id));
        } else if (method === "PATCH") sendJson(res, 200, await service.update(await teacher(req), id, await readJsonBody(req)));
        else if (method === "DELETE") sendJson(res, 200, await service.remove(await teacher(req), id));
        else throw methodNotAllowed(["GET", "PATCH", "DELETE"]);
        return true;
      case "start":
        if (method !== "POST") throw methodNotAllowed(["POST"]);
        sendJson(res, 201, await service.start(id, address, await readJsonBody(req)));
        return true;
      case "me":
        if (method !== "GET") throw methodNotAllowed(["GET"]);
        sendJson(res, 200, await service.me(id, tokenOf(req)));
        return true;
      case "answer":
        if (method !== "POST") throw methodNotAllowed(["POST"]);
        sendJson(res, 200, await service.answer(id, tokenOf(req), await readJsonBody(req)));
        return true;
      case "progress":
        if (method !== "POST") throw methodNotAllowed(["POST"]);
        sendJson(res, 200, await service.move(id, tokenOf(req), await readJsonBody(req)));
        return true;
      case "export": {
        if (method !== "GET") throw methodNotAllowed(["GET"]);
        const progress = await service.progress(await teacher(req), id);
        const a = (await deps.store.get(progress.id))!;
        sendFile(res, {
          filename: `assignment-${a.id.slice(0, 8)}.csv`,
          body: assignmentCsv(a, await deps.store.students(a.id), await deps.store.answers(a.id)),
        });
        return true;
      }
      default:
        return false;
    }
  };
}
