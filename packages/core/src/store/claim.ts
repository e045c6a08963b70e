import { ConditionFailedError, type ItemKey, type Table } from '../ports/table.ts';

/**
 * Moves a record from status pending to sending, once: what a run's outcome reply (a chat
 * command's, an automation callback's) does before posting, so a report step that runs
 * again posts once. False: another claimed it first.
 */
export async function claimPending(table: Table, key: ItemKey): Promise<boolean> {
  try {
    await table.update({ key, set: { status: 'sending' }, condition: { kind: 'equals', attr: 'status', value: 'pending' } });
    return true;
  } catch (err) {
    if (err instanceof ConditionFailedError) return false;
    throw err;
  }
}
