/**
 * Semantic search over a store, on both Table adapters (the local file table and DynamoDB
 * Local): tests, results and heals recorded through the repositories as the run graph and
 * the healing endpoints record them. Checks what becomes a failure (the last attempt of a
 * finished run among each project's latest 10; not a failure a retry fixed, not a run
 * still going), the failed step named from the test, heals of the project and of the
 * organization, the per-search caps, and another organization that finds nothing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createStore, type Store } from '@svc/core/store/index';
import { semanticSearchService } from '@svc/core/services/semantic-search';
import { SemanticSearchQuery } from '@svc/core/contracts/semantic-search';
import { SEARCH_LIMITS } from '@svc/core/search/candidates';
import { localEmbedder, type Embedder } from '@svc/core/healing/service/embedder';
import { uuidv7 } from '@svc/core/ids';
import { systemClock } from '@svc/core/ports/clock';
import { silentLogger } from '@svc/core/ports/logger';
import type { Table } from '@svc/core/ports/table';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { useDynamoDbLocal } from '../support/dynamodb-local.ts';

const ddb = useDynamoDbLocal('semantic-search');
const adapters: Array<[string, () => Promise<Table>]> = [
  ['FileTable', async () => new FileTable()],
  ['DynamoDbTable', () => ddb.freshTable()],
];

for (const [adapter, makeTable] of adapters) {
  describe(`semantic search on ${adapter}`, () => {
    let store: Store;
    const org = uuidv7();
    const other = uuidv7();
    let shop: string;
    let blog: string;
    const ids: Record<string, string> = {};
    const q = (input: Record<string, string | number>) => SemanticSearchQuery.parse(input);

    const run = async (project: string, outcomes: Record<string, Array<'passed' | 'failed'>>, opts: { finish?: boolean; errors?: Record<string, string> } = {}) => {
      const r = await store.testRuns.create(org, { project_id: project, trigger: 'ci', total_tests: Object.keys(outcomes).length });
      for (const [name, attempts] of Object.entries(outcomes)) {
        for (const [i, status] of attempts.entries()) {
          await store.testRuns.recordResult(org, {
            test_id: ids[name], test_run_id: r.id, status, duration_ms: 100, screenshots: [], attempt: i + 1,
            error_message: status === 'failed' ? (opts.errors?.[name] ?? `${name} broke`) : null,
            metadata: { name, ...(status === 'failed' ? { failure_kind: 'assertion', failed_step: 1 } : {}) },
          });
        }
      }
      if (opts.finish !== false) await store.testRuns.setStatus(org, r.id, 'completed', { completed_at: new Date().toISOString() });
      return r.id;
    };

    afterAll(async () => {
      await store?.table.close?.();
    });

    it('records tests, runs and heals', async () => {
      store = createStore(await makeTable(), systemClock);
      shop = (await store.projects.create(org, { name: 'shop' })).id;
      blog = (await store.projects.create(org, { name: 'blog' })).id;
      const create = async (project: string, name: string, steps: unknown[]) => {
        ids[name] = (await store.tests.create(org, { project_id: project, name, description: null, type: 'ui', steps: steps as never, assertions: [], priority: 'medium', tags: [] })).id;
      };
      await create(shop, 'checkout', [{ type: 'goto', url: '/cart' }, { type: 'click', selector: '#pay-now' }]);
      await create(shop, 'coupon', [{ type: 'goto', url: '/cart' }, { type: 'fill', selector: '#coupon', value: 'SAVE10' }]);
      await create(shop, 'search', [{ type: 'goto', url: '/' }, { type: 'fill', selector: 'input[name=q]', value: 'shoes' }]);
      await create(blog, 'comment', [{ type: 'goto', url: '/post/1' }, { type: 'click', selector: '#post-comment' }]);
      // An old failure, then 10 newer finished runs: the old one is outside the window.
      await run(shop, { search: ['failed'] }, { errors: { search: 'search results never appeared (ancient)' } });
      for (let i = 0; i < 9; i++) await run(shop, { search: ['passed'] });
      await run(shop, { checkout: ['failed'], coupon: ['failed', 'passed'] }, { errors: { checkout: 'Timeout 5000ms waiting for locator("#pay-now")' } });
      await run(shop, { search: ['failed'] }, { finish: false, errors: { search: 'search results never appeared (still running)' } });
      await run(blog, { comment: ['failed'] }, { errors: { comment: 'Timeout 5000ms waiting for locator("#post-comment")' } });
      await store.healingPatterns.create(org, { project_id: shop, pattern_type: 'selector_renamed', original_selector: '#pay-now', healed_selector: '[data-testid=pay]', confidence: 0.9, method: 'dom_similarity', healed_locator: { role: 'button', name: 'Pay now' } });
      await store.healingPatterns.create(org, { project_id: null, pattern_type: 'attribute_changed', original_selector: '#cookie-accept', healed_selector: '#consent-accept', confidence: 0.9, method: 'manual' });
      await store.healingPatterns.create(org, { project_id: blog, pattern_type: 'selector_renamed', original_selector: '#post-comment', healed_selector: '#comment-submit', confidence: 0.9, method: 'dom_similarity' });
    });

    it('a failure is the last failed attempt of a finished run among the latest 10', async () => {
      const search = semanticSearchService({ store, embedder: localEmbedder() });
      const res = await search.search(org, q({ q: 'timeout waiting for the pay button', project_id: shop, kinds: 'failures', limit: 50 }));
      expect(res.searched).toMatchObject({ tests: 0, failures: 1, heals: 0, truncated: false });
      expect(res.results).toHaveLength(1);
      expect(res.results[0]).toMatchObject({ kind: 'failure', title: 'checkout', project_id: shop, links: { test: `/api/tests/${ids.checkout}` } });
      // failed_step 1 is the second step, named from the test.
      expect(res.results[0].snippet).toContain('failed step 2: click #pay-now');
      expect(res.results[0].snippet).toContain('failure kind: assertion');
      const searchFailures = await search.search(org, q({ q: 'search results never appeared', project_id: shop, kinds: 'failures' }));
      expect(searchFailures.results.map((r) => r.title)).not.toContain('search');
    });

    it('heals: the project\'s and the organization-wide ones, not another project\'s', async () => {
      const search = semanticSearchService({ store, embedder: localEmbedder() });
      const res = await search.search(org, q({ q: 'accept', project_id: shop, kinds: 'heals', limit: 50 }));
      expect(res.searched.heals).toBe(2);
      expect(res.results[0]).toMatchObject({ kind: 'heal', title: '#cookie-accept → #consent-accept', project_id: null });
      const pay = await search.search(org, q({ q: 'pay now button', project_id: shop, kinds: 'heals' }));
      expect(pay.results[0].title).toBe('#pay-now → [data-testid=pay]');
      expect(pay.results[0].snippet).toContain('element: role button name "Pay now"');
      const all = await search.search(org, q({ q: '#post-comment', kinds: 'heals,failures' }));
      expect(all.results.map((r) => [r.kind, r.project_id])).toEqual(expect.arrayContaining([['heal', blog], ['failure', blog]]));
    });

    it('another organization finds nothing', async () => {
      const search = semanticSearchService({ store, embedder: localEmbedder() });
      const res = await search.search(other, q({ q: '#pay-now checkout timeout' }));
      expect(res.results).toEqual([]);
      expect(res.searched).toEqual({ tests: 0, failures: 0, heals: 0, truncated: false });
      await expect(search.search(other, q({ q: 'checkout', project_id: shop }))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('caps the candidates: fewer with a remote embedder, each text of which is a paid request', async () => {
      const many = (await store.projects.create(org, { name: 'many' })).id;
      for (let i = 0; i < SEARCH_LIMITS.remoteCandidates + 20; i++) {
        await store.tests.create(org, { project_id: many, name: `page ${i} loads`, description: null, type: 'ui', steps: [{ type: 'goto', url: `/page/${i}` }] as never, assertions: [], priority: 'medium', tags: [] });
      }
      const local = await semanticSearchService({ store, embedder: localEmbedder() }).search(org, q({ q: 'page loads', project_id: many, kinds: 'tests' }));
      expect(local.searched).toMatchObject({ tests: SEARCH_LIMITS.remoteCandidates + 20, truncated: false });
      // The OpenAI adapter's vector space, computed here without the network: only its model id matters to the cap.
      const remote: Embedder = { model: 'openai:text-embedding-3-small', embed: (texts) => localEmbedder().embed(texts) };
      const capped = await semanticSearchService({ store, embedder: remote }).search(org, q({ q: 'page loads', project_id: many, kinds: 'tests' }));
      expect(capped.searched).toMatchObject({ tests: SEARCH_LIMITS.remoteCandidates, truncated: true });
      expect(capped.embedder).toEqual({ provider: 'openai', model: 'openai:text-embedding-3-small' });
    });

    it("a remote embedder's vectors outlive the process: a fresh cache embeds only what the organization's searches never did", async () => {
      const counting = (model: string) => {
        const embedded: string[] = [];
        const embedder: Embedder = { model, embed: async (texts) => (embedded.push(...texts), localEmbedder().embed(texts)) };
        return { embedder, embedded };
      };
      const query = q({ q: 'coupon at checkout', project_id: shop, kinds: 'tests' });
      const first = counting('openai:text-embedding-3-small');
      const cold = await semanticSearchService({ store, embedder: first.embedder }).search(org, query);
      expect(first.embedded.length).toBeGreaterThan(1);

      // A new process (new in-memory cache), the same organization and model: every vector is read from the store.
      const second = counting('openai:text-embedding-3-small');
      const warm = await semanticSearchService({ store, embedder: second.embedder }).search(org, query);
      expect(second.embedded).toEqual([]);
      expect(warm.results).toEqual(cold.results);

      // Another model's vectors are another space; the local embedder stores nothing.
      const other = counting('openai:text-embedding-3-large');
      await semanticSearchService({ store, embedder: other.embedder }).search(org, query);
      expect(other.embedded.length).toBe(first.embedded.length);
      const local = counting('svc-local-hash-v1');
      await semanticSearchService({ store, embedder: local.embedder }).search(org, query);
      await semanticSearchService({ store, embedder: local.embedder }).search(org, query);
      expect(local.embedded.length).toBe(2 * first.embedded.length);

      // A store that cannot read or write vectors costs the lookup, not the search, and says so.
      const warnings: string[] = [];
      const broken = { ...store, searchVectors: { getMany: () => Promise.reject(new Error('table down')), putMany: () => Promise.reject(new Error('table down')) } } as unknown as Store;
      const third = counting('openai:text-embedding-3-small');
      const logger = { ...silentLogger, warn: (msg: string) => void warnings.push(msg) };
      const degraded = await semanticSearchService({ store: broken, embedder: third.embedder, logger }).search(org, query);
      expect(degraded.results).toEqual(cold.results);
      expect(third.embedded.length).toBe(first.embedded.length);
      expect(warnings).toHaveLength(2);
    });
  });
}
