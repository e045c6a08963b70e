/**
 * Runs `fn` for every item with at most `limit` calls in flight, in item order; resolves
 * when all are done and rejects with the first failure. For a batch of round trips (store
 * reads or writes, embedding requests) that should neither run one at a time nor all at once.
 */
export async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** forEachLimited that keeps each call's answer, in item order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  await forEachLimited(items, limit, async (item, i) => {
    out[i] = await fn(item, i);
  });
  return out;
}
