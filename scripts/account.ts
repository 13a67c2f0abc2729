// Teachers' accounts from the command line: `npm run account -- <command> [options]`.
// README "Running a class" and "Operations" say when an operator needs it.
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { errorMessage } from "../lib/errors";
import { hashPassword } from "../server/auth/password";
import { displayNameSchema, emailSchema, newPassword } from "../server/auth/schemas";
import { loadConfig } from "../server/config";
import { setLogLevel } from "../server/logger";
import { newId } from "../server/secrets";
import type { Account, AccountStore } from "../server/store/accounts";
import { openAccountStore } from "../server/store/accountsOpen";
import { removeAccountData } from "../server/auth/accountRemoval";
import type { LessonStore } from "../server/store/lessons";
import { openLessonStore } from "../server/store/openLessons";
import { RedisSessionStore, connectRedis } from "../server/store/redis";
import { SqliteSessionStore } from "../server/store/sqlite";
import type { SessionStore } from "../server/store/types";

const USAGE = `usage: npm run account -- <command> [options]

  create --email <email> [--name <name>] [--admin] [--no-password]
      Creates an account. The password is asked for twice (or read from the first line of stdin when it is not a
      terminal). --no-password makes an account with no way in yet, for a teacher who will use school sign-in
      (OIDC): their first school sign-in with that verified email takes it over.
  list
      Every account: email, name, administrator, how it signs in.
  set-password --email <email>
      Sets a new password (a teacher who forgot theirs), and signs the account out everywhere.
  admin --email <email> [--revoke]
      Makes the account an administrator (or, with --revoke, no longer one).
  sign-out --email <email>
      Ends every sign-in of the account.
  delete --email <email>
      Deletes the account with its credentials and sign-ins, its lessons and ended sessions (those shared with a
      co-teacher pass to them instead; a live one keeps running, owned by nobody).

The store is the server's: DATA_DIR/sessions.sqlite, or Redis when REDIS_URL is set. It can run while the server does.
`;

class UsageError extends Error {}

/** A password typed without echo, or the first line of stdin when it is piped. */
async function readPassword(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    let text = "";
    for await (const chunk of stdin) text += String(chunk);
    return text.split(/\r?\n/)[0] ?? "";
  }
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding("utf8");
  try {
    return await new Promise<string>((resolve, reject) => {
      let typed = "";
      const onData = (chars: string) => {
        for (const c of chars) {
          if (c === "\r" || c === "\n") {
            stdin.off("data", onData);
            process.stderr.write("\n");
            return resolve(typed);
          }
          if (c === "\u0003") {
            stdin.off("data", onData);
            return reject(new UsageError("cancelled"));
          }
          typed = c === "\u007f" || c === "\b" ? typed.slice(0, -1) : typed + c;
        }
      };
      stdin.on("data", onData);
    });
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
  }
}

async function askNewPassword(): Promise<string> {
  const first = await readPassword("New password: ");
  const checked = newPassword.safeParse(first);
  if (!checked.success) throw new UsageError(checked.error.issues[0]?.message ?? "That password is not allowed.");
  if (process.stdin.isTTY && (await readPassword("Again: ")) !== first) throw new UsageError("The two passwords differ.");
  return checked.data;
}

function methods(account: Account): string {
  const ways = [account.passwordHash ? "password" : "", account.oidc ? "school sign-in" : ""].filter(Boolean);
  return ways.join(", ");
}

async function openStores(): Promise<{ sessions: SessionStore; accounts: AccountStore; lessons: LessonStore | undefined }> {
  const config = loadConfig();
  if (config.redisUrl) {
    const client = await connectRedis(config.redisUrl, { failFast: true });
    const sessions = await RedisSessionStore.open(client);
    return { sessions, accounts: openAccountStore(sessions, client)!, lessons: openLessonStore(sessions, client) };
  }
  const sessions = new SqliteSessionStore(config.dbFile);
  return { sessions, accounts: openAccountStore(sessions, undefined)!, lessons: openLessonStore(sessions, undefined) };
}

async function run(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: "string" },
      name: { type: "string" },
      admin: { type: "boolean", default: false },
      revoke: { type: "boolean", default: false },
      "no-password": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const command = positionals[0];
  if (!command || values.help) {
    process.stdout.write(USAGE);
    return command ? 0 : 2;
  }
  const email = () => {
    const parsed = emailSchema.safeParse(values.email ?? "");
    if (!parsed.success) throw new UsageError(`--email: ${parsed.error.issues[0]?.message ?? "not an email"}`);
    return parsed.data;
  };
  const { sessions, accounts, lessons } = await openStores();
  try {
    const existing = async () => {
      const account = await accounts.accountByEmail(email());
      if (!account) throw new UsageError(`There is no account for ${email()}.`);
      return account;
    };
    switch (command) {
      case "create": {
        const address = email();
        const name = displayNameSchema.safeParse(values.name ?? address.split("@")[0]);
        if (!name.success) throw new UsageError(`--name: ${name.error.issues[0]?.message ?? "not a name"}`);
        if (await accounts.accountByEmail(address)) throw new UsageError(`${address} already has an account.`);
        const passwordHash = values["no-password"] ? null : await hashPassword(await askNewPassword());
        const created = await accounts.createAccount({
          id: newId(),
          email: address,
          displayName: name.data,
          createdAt: Date.now(),
          passwordHash,
          oidc: null,
          userHandle: randomBytes(32).toString("base64url"),
          admin: values.admin,
        });
        if (!created.ok) throw new UsageError(`${address} already has an account.`);
        const role = created.account.admin ? "administrator" : "teacher";
        process.stdout.write(`created ${address} (${name.data}), ${role}${passwordHash ? "" : ", no password: school sign-in takes it"}\n`);
        return 0;
      }
      case "list": {
        const all = await accounts.listAccounts();
        for (const a of all) {
          const passkeys = (await accounts.passkeysOf(a.id)).length;
          const ways = [methods(a), passkeys ? `${passkeys} passkey${passkeys > 1 ? "s" : ""}` : ""].filter(Boolean).join(", ");
          process.stdout.write(`${a.email}\t${a.displayName}\t${a.admin ? "admin" : "teacher"}\t${ways || "no way in yet"}\n`);
        }
        process.stdout.write(`${all.length} account${all.length === 1 ? "" : "s"}\n`);
        return 0;
      }
      case "set-password": {
        const account = await existing();
        await accounts.updateAccount(account.id, { passwordHash: await hashPassword(await askNewPassword()) });
        const ended = await accounts.endSignInsOf(account.id);
        process.stdout.write(`new password set for ${account.email}; ${ended} sign-in${ended === 1 ? "" : "s"} ended\n`);
        return 0;
      }
      case "admin": {
        const account = await existing();
        await accounts.updateAccount(account.id, { admin: !values.revoke });
        process.stdout.write(`${account.email} is ${values.revoke ? "no longer" : "now"} an administrator\n`);
        return 0;
      }
      case "sign-out": {
        const account = await existing();
        const ended = await accounts.endSignInsOf(account.id);
        process.stdout.write(`${ended} sign-in${ended === 1 ? "" : "s"} of ${account.email} ended\n`);
        return 0;
      }
      case "delete": {
        const account = await existing();
        // What the server's own deletion does (server/auth/accountRemoval.ts); no console is connected to this process.
        const removed = await removeAccountData({ sessions, lessons, consolesRevoked: () => undefined }, account.id);
        await accounts.deleteAccount(account.id);
        process.stdout.write(
          `deleted ${account.email} with its credentials and sign-ins; sessions: ${removed.sessionsDeleted} deleted, ` +
            `${removed.sessionsHandedOver} handed to a co-teacher, ${removed.sessionsLeftLive} live left unowned; ` +
            `lessons: ${removed.lessonsDeleted} deleted, ${removed.lessonsHandedOver} handed to a co-teacher\n`,
        );
        return 0;
      }
      default:
        throw new UsageError(`Unknown command "${command}".\n\n${USAGE}`);
    }
  } finally {
    await lessons?.close();
    await accounts.close();
    await sessions.close();
  }
}

setLogLevel("warn");
run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof UsageError ? err.message : `account: ${errorMessage(err)}`}\n`);
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);
