/**
 * A thread id chosen through the API (`thread_id` in a run request) is kept in the
 * organization's own namespace: `o-<organization id>-<name>`. Thread ids are one namespace
 * for the installation (checkpoints, events and approvals hang off them), so a bare chosen
 * name let one organization take a name another would use ("nightly-2026-11-29") and told
 * it, by a 409, that a name was taken somewhere (noted by QA). Within an organization the
 * same name is still the same thread, so a retried start is still refused as a duplicate.
 * svc's own thread ids (a run's id; a schedule's, a webhook's or a heal's, built from the
 * organization's own ids) are not chosen by a caller and stay as they are.
 */
export function scopedThreadId(orgId: string, chosen: string): string {
  const prefix = `o-${orgId.toLowerCase()}-`;
  return chosen.startsWith(prefix) ? chosen : `${prefix}${chosen}`; // already the organization's: as it is
}

/** The thread ids a caller's `given` can name, in the order tried: as given (svc's, or already scoped), then as a chosen name. */
export function threadIdsNamedBy(orgId: string, given: string): string[] {
  const scoped = scopedThreadId(orgId, given);
  return scoped === given ? [given] : [given, scoped];
}

/** A run request from the API with its chosen thread id (if any) in the organization's namespace. */
export function withScopedThread<T extends { thread_id?: string }>(orgId: string, input: T): T {
  return input.thread_id === undefined ? input : { ...input, thread_id: scopedThreadId(orgId, input.thread_id) };
}
