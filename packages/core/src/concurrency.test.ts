import { describe, expect, it } from 'vitest';
import { forEachLimited, mapLimited } from './concurrency.ts';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('forEachLimited and mapLimited', () => {
  it('keep at most `limit` calls in flight, start them in item order, and answer in item order', async () => {
    let inFlight = 0;
    let most = 0;
    const started: number[] = [];
    const out = await mapLimited([30, 5, 20, 1, 10, 2], 3, async (ms, i) => {
      started.push(i);
      most = Math.max(most, ++inFlight);
      await tick(ms);
      inFlight--;
      return ms * 2;
    });
    expect(out).toEqual([60, 10, 40, 2, 20, 4]);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    expect(most).toBe(3);
  });

  it('do nothing for no items, and reject with the first failure', async () => {
    expect(await mapLimited([], 4, async () => 1)).toEqual([]);
    const seen: number[] = [];
    await expect(forEachLimited([1, 2, 3], 2, async (n) => {
      seen.push(n);
      if (n === 2) throw new Error('item 2 broke');
    })).rejects.toThrow('item 2 broke');
    expect(seen).toContain(2);
  });
});
