import { isSealed, type SealedSecret, type SecretCipher, type SecretContext } from '../ports/secret-cipher.ts';
import type { Condition, ItemKey } from '../ports/table.ts';
import { secretUnreadable } from '../secrets/envelope.ts';

/**
 * A secret attribute as it may be found in the table: sealed (everything written since
 * encryption at rest), or a plain string written before it, which still reads and is
 * sealed on the record's next write.
 */
export type StoredSecret = string | SealedSecret;

type Opened<T> = { [K in keyof T]: T[K] extends null ? null : undefined extends T[K] ? string | null : string };

/**
 * The one call a repository makes for any secret attribute of a record: seal named values
 * before a write, open them when a caller needs them, and re-seal plaintext left from
 * before. Each value is bound to its organization, record key and attribute name, so it
 * opens only where it was written. To protect one more attribute, pass it here on write
 * and on read (docs/decisions.md "Secrets are sealed at rest" shows the status_token case).
 */
export function secretFields(cipher: SecretCipher) {
  const contextOf = (organizationId: string, key: ItemKey, field: string): SecretContext => ({ organizationId, record: `${key.pk}/${key.sk}`, field });

  /** Each given value sealed; null stays null (no secret), undefined stays out (not written). */
  async function seal<T extends Record<string, string | null | undefined>>(organizationId: string, key: ItemKey, values: T): Promise<{ [K in keyof T]: SealedSecret | Extract<T[K], null | undefined> }> {
    const out: Record<string, SealedSecret | null | undefined> = {};
    await Promise.all(Object.entries(values).map(async ([field, value]) => {
      out[field] = typeof value === 'string' ? await cipher.seal(value, contextOf(organizationId, key, field)) : value;
    }));
    return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as { [K in keyof T]: SealedSecret | Extract<T[K], null | undefined> };
  }

  return {
    seal,

    /**
     * What an update of a record with secret attributes writes: `set` with each of `fields`
     * it gives sealed, plus the `fields` still in plaintext in `current` (from before
     * encryption at rest) sealed as they are — so any write of the record migrates it. The
     * condition (the first re-sealed attribute still holds its old text) keeps a racing
     * write of that attribute from being overwritten by its old value; on CONDITION_FAILED
     * read the record again and retry.
     */
    async forUpdate(organizationId: string, key: ItemKey, current: Record<string, unknown>, fields: readonly string[], set: Record<string, unknown>): Promise<{ set: Record<string, unknown>; condition?: Condition }> {
      const given = fields.filter((f) => typeof set[f] === 'string');
      const legacy = fields.filter((f) => !given.includes(f) && typeof current[f] === 'string');
      const sealed = await seal(organizationId, key, Object.fromEntries([...given.map((f) => [f, set[f] as string]), ...legacy.map((f) => [f, current[f] as string])]));
      const first = legacy[0];
      return { set: { ...set, ...sealed }, ...(first ? { condition: { kind: 'equals' as const, attr: first, value: current[first] as string } } : {}) };
    },

    /** The named attributes of `stored`, opened (plaintext from before passes through; missing → null). */
    async open<T extends Record<string, unknown>>(organizationId: string, key: ItemKey, stored: T): Promise<Opened<T>> {
      const out: Record<string, string | null> = {};
      await Promise.all(Object.entries(stored).map(async ([field, value]) => {
        const context = contextOf(organizationId, key, field);
        if (value === null || value === undefined) out[field] = null;
        else if (typeof value === 'string') out[field] = value;
        else if (isSealed(value)) out[field] = await cipher.open(value, context);
        else throw secretUnreadable(context, 'the stored attribute is neither a sealed value nor text');
      }));
      return out as Opened<T>;
    },
  };
}

export type SecretFields = ReturnType<typeof secretFields>;
