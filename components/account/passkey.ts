import { browserSupportsWebAuthn, startAuthentication, startRegistration } from "@simplewebauthn/browser";
import type { AccountView } from "@/lib/account/rest";
import { AccountApiError, postJson } from "./api";

/**
 * Passkey ceremonies in the browser (@simplewebauthn/browser): ask the server
 * for options, let the browser and the device do the rest, send the answer
 * back. Passkeys need a secure page (https, or http://localhost); on a plain
 * LAN address the browser has no WebAuthn, and the pages say so.
 */

export function passkeysAvailable(): boolean {
  return typeof window !== "undefined" && window.isSecureContext && browserSupportsWebAuthn();
}

/** The device's own refusal (the teacher cancelled, or the page timed out) in words. */
function deviceError(err: unknown): AccountApiError {
  if (err instanceof AccountApiError) return err;
  const name = err instanceof Error ? err.name : "";
  if (name === "NotAllowedError" || name === "AbortError")
    return new AccountApiError(0, "CANCELLED", "The passkey request was cancelled or timed out. Try again when you are ready.");
  if (name === "InvalidStateError")
    return new AccountApiError(0, "ALREADY_REGISTERED", "This device already holds a passkey for this account.");
  return new AccountApiError(0, "PASSKEY_FAILED", "This browser could not use a passkey here. Sign in another way.");
}

async function register(optionsPath: string, verifyPath: string, body: unknown): Promise<AccountView> {
  try {
    const options = await postJson<Parameters<typeof startRegistration>[0]["optionsJSON"]>(optionsPath, body);
    const response = await startRegistration({ optionsJSON: options });
    return await postJson<AccountView>(verifyPath, { response });
  } catch (err) {
    throw deviceError(err);
  }
}

export function signUpWithPasskey(email: string, displayName: string): Promise<AccountView> {
  return register("/api/account/passkey/sign-up/options", "/api/account/passkey/sign-up/verify", { email, displayName });
}

export function addPasskey(): Promise<AccountView> {
  return register("/api/account/passkey/add/options", "/api/account/passkey/add/verify", {});
}

export async function signInWithPasskey(): Promise<AccountView> {
  try {
    const options = await postJson<Parameters<typeof startAuthentication>[0]["optionsJSON"]>("/api/account/passkey/sign-in/options");
    const response = await startAuthentication({ optionsJSON: options });
    return await postJson<AccountView>("/api/account/passkey/sign-in/verify", { response });
  } catch (err) {
    throw deviceError(err);
  }
}
