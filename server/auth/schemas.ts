import { z } from "zod";
import { DISPLAY_NAME_MAX, EMAIL_MAX, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../../lib/account/rest";
import { cleanText } from "../../lib/text";
import { normalizeEmail } from "../store/accounts";
import { AuthError } from "./errors";

/**
 * Every account request body, parsed once at the edge (server/auth/http.ts):
 * unknown keys stripped, sizes capped, and the first problem said in words.
 */

export const emailSchema = z
  .string()
  .max(EMAIL_MAX * 2)
  .transform(normalizeEmail)
  .pipe(z.email({ message: "Enter a valid email address." }).max(EMAIL_MAX, `An email has at most ${EMAIL_MAX} characters.`));

export const displayNameSchema = z
  .string()
  .max(DISPLAY_NAME_MAX * 4)
  .transform((s) => cleanText(s, DISPLAY_NAME_MAX))
  .pipe(z.string().min(1, "Enter your name as your classes should see it."));

/** A new password: the rules are the length (NIST SP 800-63B: no composition rules). */
export const newPassword = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `Use at least ${PASSWORD_MIN_LENGTH} characters.`)
  .max(PASSWORD_MAX_LENGTH, `Use at most ${PASSWORD_MAX_LENGTH} characters.`);

/** A password being checked: any length up to the cap (a too-short one simply does not match). */
const presentedPassword = z.string().min(1, "Enter your password.").max(PASSWORD_MAX_LENGTH, "That password is too long.");

export const signUpBody = z.object({ email: emailSchema, displayName: displayNameSchema, password: newPassword }).strip();
export const signInBody = z.object({ email: emailSchema, password: presentedPassword }).strip();
export const passkeySignUpBody = z.object({ email: emailSchema, displayName: displayNameSchema }).strip();
export const setPasswordBody = z.object({ currentPassword: presentedPassword.optional(), password: newPassword }).strip();
/** Inviting a co-teacher to a session or a lesson: the email of their account. */
export const inviteBody = z.object({ email: emailSchema }).strip();
export const deleteAccountBody = z
  .object({
    confirmEmail: z
      .string()
      .max(EMAIL_MAX * 2)
      .transform(normalizeEmail),
  })
  .strip();

/**
 * What a browser's WebAuthn call returns, checked for shape and size; its
 * contents are verified by @simplewebauthn/server against the stored challenge.
 */
const b64url = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[A-Za-z0-9_-]*$/, "not base64url");
export const registrationResponse = z
  .object({
    id: b64url(1_400),
    rawId: b64url(1_400),
    type: z.literal("public-key"),
    response: z
      .object({
        clientDataJSON: b64url(4_000),
        attestationObject: b64url(8_000),
        transports: z.array(z.string().max(32)).max(8).optional(),
      })
      .strip(),
    clientExtensionResults: z.object({}).loose().default({}),
    authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
  })
  .strip();
export const authenticationResponse = z
  .object({
    id: b64url(1_400),
    rawId: b64url(1_400),
    type: z.literal("public-key"),
    response: z
      .object({
        clientDataJSON: b64url(4_000),
        authenticatorData: b64url(4_000),
        signature: b64url(2_000),
        userHandle: b64url(200).optional(),
      })
      .strip(),
    clientExtensionResults: z.object({}).loose().default({}),
    authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
  })
  .strip();
export const registrationVerifyBody = z.object({ response: registrationResponse }).strip();
export const authenticationVerifyBody = z.object({ response: authenticationResponse }).strip();

/** Parses `body` with `schema`, or refuses with the first issue in words, naming the field it concerns. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.map(String).join(".") || undefined;
  const message =
    issue?.code === "invalid_type" ? `${field ?? "The body"} is missing or of the wrong type.` : (issue?.message ?? "Malformed.");
  throw new AuthError(400, "BAD_REQUEST", message, undefined, field);
}
