import type { Table } from '../ports/table.ts';
import { keys } from './keys.ts';

const SYSTEM_AUTHORS: Record<string, string> = {
  'system:autonomous_loop': 'the autonomous loop',
  'system:generation': 'test generation',
  'system:cli': 'svc run',
};

/**
 * Who wrote a revision, in words for a message: a member by email, an API key by its name
 * (`API key "ci"`, revoked ones too: their record stays), svc's own writers by what they
 * are; anything else (a member who has left) as its id. Callers keep the id beside it.
 */
export async function authorName(table: Table, orgId: string, changedBy: string): Promise<string> {
  const [kind, id] = [changedBy.slice(0, changedBy.indexOf(':')), changedBy.slice(changedBy.indexOf(':') + 1)];
  if (kind === 'user' && id) {
    const member = await table.get(keys.member(orgId, id));
    if (typeof member?.email === 'string') return member.email;
  }
  if (kind === 'api_key' && id) {
    const key = await table.get(keys.apiKey(orgId, id));
    if (typeof key?.name === 'string') return `API key "${key.name}"`;
  }
  return SYSTEM_AUTHORS[changedBy] ?? changedBy;
}

/** Each of some writers' names (as authorName), each read once. */
export async function authorNames(table: Table, orgId: string, changedBy: readonly string[]): Promise<Map<string, string>> {
  const distinct = [...new Set(changedBy)];
  const names = await Promise.all(distinct.map((by) => authorName(table, orgId, by)));
  return new Map(distinct.map((by, i) => [by, names[i]!]));
}
