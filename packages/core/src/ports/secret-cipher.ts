/**
 * Secrets at rest (docs/decisions.md "Secrets are sealed at rest"). A secret the store
 * keeps — a project's secret variable, a notification channel's URL and signing secret,
 * a source-control integration's secret — is sealed before it is written and opened when
 * a run, a delivery or a webhook needs it.
 *
 * `SecretCipher` is what the store uses. core builds it from a `DataKeys` port
 * (secrets/envelope.ts): envelope encryption, one fresh 256-bit data key per value, the
 * value under AES-256-GCM, the data key wrapped by a key-encryption key the adapter holds
 * (functions: a key file for the local runtime, AWS KMS on AWS). Both the value and the
 * wrapped data key are bound to `SecretContext`, so a sealed value copied to another
 * record, organization or field does not open.
 */

/** What a sealed value belongs to; checked when it is opened. No part of it is secret. */
export interface SecretContext {
  organizationId: string;
  /** The record's key in the table, e.g. `ORG#…#PROJECT#…#ENV/VAR#DB_PASSWORD`. */
  record: string;
  /** The attribute the value is stored in (url, signing_secret, value, …). */
  field: string;
}

/** Version of the sealed format below; a reader refuses versions it does not know. */
export const SEALED_VERSION = 1;

/**
 * A sealed value as stored (docs/data-model.md "Sealed values"). All binary parts are
 * base64. `kid` names the key-encryption key that wrapped `dk`, so values sealed under an
 * older key can be found and re-sealed when keys rotate.
 */
export interface SealedSecret {
  svc_sealed: typeof SEALED_VERSION;
  alg: 'AES-256-GCM';
  kid: string;
  /** The data key, wrapped by `kid` (a local AES-GCM blob, or a KMS CiphertextBlob). */
  dk: string;
  iv: string;
  ct: string;
  tag: string;
}

export interface SecretCipher {
  /** The key new values are sealed under (shown in health and docs, never secret). */
  readonly keyId: string;
  seal(plaintext: string, context: SecretContext): Promise<SealedSecret>;
  /** Throws AppError SECRET_UNREADABLE naming the field and record, never the value. */
  open(sealed: SealedSecret, context: SecretContext): Promise<string>;
}

/** A fresh data key: its bytes (used once, then dropped) and the same key wrapped for storage. */
export interface DataKey {
  plaintext: Uint8Array;
  wrapped: string;
  keyId: string;
}

/**
 * The key-encryption side of the envelope, implemented by each adapter. `context` is the
 * SecretContext as string pairs (KMS's EncryptionContext; the local key file's AAD).
 * `unwrap` throws `KeyUnwrapError` with a reason that never contains key material.
 */
export interface DataKeys {
  readonly keyId: string;
  generate(context: Record<string, string>): Promise<DataKey>;
  unwrap(wrapped: string, keyId: string, context: Record<string, string>): Promise<Uint8Array>;
}

/** Why a data key did not unwrap (unknown key, refused by the key service, wrong context or tampered). */
export class KeyUnwrapError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'KeyUnwrapError';
  }
}

/** A stored value sealed by this version of svc (anything else is a plaintext value from before). */
export function isSealed(value: unknown): value is SealedSecret {
  return typeof value === 'object' && value !== null && 'svc_sealed' in value;
}
