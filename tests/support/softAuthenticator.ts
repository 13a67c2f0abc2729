import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";

/**
 * A WebAuthn authenticator in software, for tests that drive passkey
 * ceremonies over real HTTP without a browser: it answers the server's
 * options the way a platform authenticator does (P-256 key, "none"
 * attestation, user presence and verification flags, a signature counter),
 * so the server's real verification (SimpleWebAuthn) checks every byte. The
 * Playwright spec uses Chromium's own virtual authenticator instead.
 */

type Cbor = number | string | Uint8Array | Cbor[] | Map<Cbor, Cbor>;

function head(major: number, n: number): number[] {
  if (n < 24) return [(major << 5) | n];
  if (n < 0x100) return [(major << 5) | 24, n];
  if (n < 0x10000) return [(major << 5) | 25, n >> 8, n & 0xff];
  return [(major << 5) | 26, (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
}

/** Just enough CBOR for COSE keys and attestation objects. */
export function cbor(value: Cbor): Buffer {
  if (typeof value === "number") return Buffer.from(value >= 0 ? head(0, value) : head(1, -1 - value));
  if (typeof value === "string") {
    const bytes = Buffer.from(value, "utf8");
    return Buffer.concat([Buffer.from(head(3, bytes.length)), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([Buffer.from(head(2, value.length)), value]);
  if (Array.isArray(value)) return Buffer.concat([Buffer.from(head(4, value.length)), ...value.map(cbor)]);
  return Buffer.concat([Buffer.from(head(5, value.size)), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest();
const b64u = (b: Buffer | Uint8Array) => Buffer.from(b).toString("base64url");
const FLAG = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40 } as const;

export interface RegistrationOptions {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string; displayName: string };
}

export interface AuthenticationOptions {
  challenge: string;
  rpId?: string;
}

interface Credential {
  id: Buffer;
  rpId: string;
  userHandle: string;
  privateKey: KeyObject;
  counter: number;
}

export class SoftAuthenticator {
  readonly credentials: Credential[] = [];
  /** Whether it says the user was verified (a PIN or fingerprint); a server requiring it refuses otherwise. */
  userVerified = true;

  constructor(
    /** The page origin the browser would put in clientDataJSON. */
    readonly origin: string,
  ) {}

  private clientData(type: "webauthn.create" | "webauthn.get", challenge: string, origin = this.origin): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), "utf8");
  }

  private flags(extra = 0): number {
    return FLAG.UP | (this.userVerified ? FLAG.UV : 0) | FLAG.BE | FLAG.BS | extra;
  }

  /** navigator.credentials.create(): a new key pair, answered as RegistrationResponseJSON. */
  register(options: RegistrationOptions, overrides: { origin?: string } = {}) {
    const rpId = options.rp.id ?? new URL(this.origin).hostname;
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const jwk = publicKey.export({ format: "jwk" });
    const id = randomBytes(16);
    const coseKey = cbor(
      new Map<Cbor, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, "base64url")],
        [-3, Buffer.from(jwk.y!, "base64url")],
      ]),
    );
    const counter = Buffer.alloc(4);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const authData = Buffer.concat([sha256(rpId), Buffer.from([this.flags(FLAG.AT)]), counter, Buffer.alloc(16), idLength, id, coseKey]);
    const attestationObject = cbor(
      new Map<Cbor, Cbor>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", authData],
      ]),
    );
    this.credentials.push({ id, rpId, userHandle: options.user.id, privateKey, counter: 0 });
    return {
      id: b64u(id),
      rawId: b64u(id),
      type: "public-key" as const,
      response: {
        clientDataJSON: b64u(this.clientData("webauthn.create", options.challenge, overrides.origin)),
        attestationObject: b64u(attestationObject),
        transports: ["internal", "hybrid"],
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform" as const,
    };
  }

  /** navigator.credentials.get(): signs the challenge with the credential for this site (the newest, or `credentialId`). */
  authenticate(options: AuthenticationOptions, overrides: { origin?: string; credentialId?: string; userHandle?: string } = {}) {
    const rpId = options.rpId ?? new URL(this.origin).hostname;
    const candidates = this.credentials.filter((c) => c.rpId === rpId);
    const credential = overrides.credentialId ? candidates.find((c) => b64u(c.id) === overrides.credentialId) : candidates.at(-1);
    if (!credential) throw new Error(`no credential for ${rpId}`);
    credential.counter++;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(credential.counter);
    const authData = Buffer.concat([sha256(rpId), Buffer.from([this.flags()]), counter]);
    const clientData = this.clientData("webauthn.get", options.challenge, overrides.origin);
    const signature = sign("sha256", Buffer.concat([authData, sha256(clientData)]), credential.privateKey);
    return {
      id: b64u(credential.id),
      rawId: b64u(credential.id),
      type: "public-key" as const,
      response: {
        clientDataJSON: b64u(clientData),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        userHandle: overrides.userHandle ?? credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform" as const,
    };
  }
}
