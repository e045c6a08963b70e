/**
 * Runs `fn` for every item with at most `limit` calls in flight, in item order; resolves
 * when all are done and rejects with the first failure. For a batch of round trips (store
 * reads or writes) that should neither run one at a time nor all at once.
 */
export async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
