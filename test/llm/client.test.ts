/**
 * The LLM client end to end, through the real OpenAI-compatible adapter against local
 * wire-format servers and the real store on both table adapters: routing by class,
 * fallback order, budgets (org daily/monthly, per run, per test) with the 80% alert once
 * per period, and usage rows with their daily roll-up written atomically.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlmClient, type LlmClientOptions } from '@svc/core/llm/client';
import { LlmError } from '@svc/core/llm/errors';
import type { ModelChoice } from '@svc/core/llm/types';
import { createStore, type Store } from '@svc/core/store/index';
import type { Alert } from '@svc/core/events/ports';
import type { Clock } from '@svc/core/ports/clock';
import type { Table } from '@svc/core/ports/table';
import { MetricsRegistry, type Counter } from '@svc/core/telemetry/metrics';
import { AppError } from '@svc/core/errors';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { openAiProvider } from '../../packages/functions/src/llm/openai.ts';
import { anthropicProvider } from '../../packages/functions/src/llm/anthropic.ts';
import { useDynamoDbLocal } from '../support/dynamodb-local.ts';
import { startWireDouble, type WireDouble } from './support/wire-double.ts';
import { anthropicMessage, openAiCompletion, openAiError } from './support/formats.ts';

const ddb = useDynamoDbLocal('llm');
let now = new Date('2026-11-21T10:00:00Z');
const clock: Clock = { now: () => now };
const adapters: Array<[string, () => Promise<Table>]> = [
  ['FileTable', async () => new FileTable(undefined, { clock })],
  ['DynamoDbTable', () => ddb.freshTable({ clock })],
];

/** One server answering for every model: 600 prompt + 400 completion tokens = 1K tokens per call. */
let api: WireDouble;
const failFor = new Map<string, { status: number; times: number }>();
beforeAll(async () => {
  api = await startWireDouble((req) => {
    const model = req.body?.model as string;
    const f = failFor.get(model);
    if (f && f.times > 0) {
      f.times -= 1;
      return { status: f.status, body: openAiError(`${model} is busy`) };
    }
    return { body: openAiCompletion(`answer from ${model}`, { prompt: 600, completion: 400 }, model) };
  });
});
afterAll(() => api.close());

const provider = () => openAiProvider({ apiKey: 'k', baseUrl: `${api.url}/v1`, timeoutMs: 2_000, name: 'primary' });
const models = (): ModelChoice[] => [
  { provider: provider(), model: 'small', tier: 'cheap', costPer1kTokens: 0.001 },
  { provider: provider(), model: 'medium', tier: 'mid', costPer1kTokens: 0.003 },
];

for (const [name, makeTable] of adapters) {
  describe(`LLM client on ${name}`, () => {
    let store: Store;
    let alerts: Alert[];
    let metrics: MetricsRegistry;
    const client = (extra: Partial<LlmClientOptions> = {}) =>
      createLlmClient({ models: models(), store, clock, metrics, alerts: { raise: async (a) => void alerts.push(a) }, ...extra });
    const newOrg = async (budget: { ai_budget_daily?: number | null; ai_budget_monthly?: number | null } = {}) =>
      (await store.organizations.create({ name: `Org ${Math.random()}`, ...budget }, { userId: 'u', email: 'u@example.com' })).organization.id;
    const code = async (p: Promise<unknown>) => {
      try {
        await p;
        return 'ok';
      } catch (err) {
        return err instanceof LlmError ? err.reason : (err as Error).message;
      }
    };

    beforeAll(async () => {
      store = createStore(await makeTable(), clock);
    });
    beforeAll(() => {
      alerts = [];
      metrics = new MetricsRegistry();
      failFor.clear();
      now = new Date('2026-11-21T10:00:00Z');
    });

    it('routes a SIMPLE task to the cheap tier and records usage, the daily roll-up and the org spend', async () => {
      const org = await newOrg();
      const res = await client().complete({ type: 'chat_answer' }, { prompt: 'What failed?' }, { organizationId: org, runId: 'run-1' });
      expect(res).toMatchObject({ text: 'answer from small', model: 'small', provider: 'primary', tier: 'cheap', complexity: 'SIMPLE', inputTokens: 600, outputTokens: 400, costUsd: 0.001, fellBack: false });
      const rows = (await store.aiUsage.list(org, 10)).items;
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ id: res.usageId, organization_id: org, run_id: 'run-1', model: 'small', input_tokens: 600, output_tokens: 400, cost_usd: 0.001, task_type: 'chat_answer', complexity: 'SIMPLE', tier: 'cheap' });
      expect(await store.aiUsage.daily(org, '2026-11-21')).toMatchObject({ organization_id: org, date: '2026-11-21', request_count: 1, input_tokens: 600, output_tokens: 400, cost_usd: 0.001 });
      expect((await store.organizations.get(org))?.ai_spend_today_usd).toBeCloseTo(0.001, 9);
      expect((metrics.get('llm_tokens_total') as Counter).get({ model: 'small' })).toBe(1000);
    });

    it('routes MODERATE to mid; EXPERT with no most-capable model configured uses the best there is', async () => {
      const org = await newOrg();
      expect((await client().complete({ type: 'generate_test' }, { prompt: 'x' }, { organizationId: org })).model).toBe('medium');
      const expert = await client().complete({ type: 'anything', complexity: 'EXPERT' }, { prompt: 'x' }, { organizationId: org });
      expect([expert.complexity, expert.tier, expert.model]).toEqual(['EXPERT', 'mid', 'medium']);
      expect(api.requests.at(-1)!.body.model).toBe('medium');
    });

    it('falls back to the cheaper model on 429 and 5xx, and says so', async () => {
      const org = await newOrg();
      failFor.set('medium', { status: 429, times: 1 });
      const res = await client().complete({ type: 'plan_tests' }, { prompt: 'x' }, { organizationId: org });
      expect(res.model).toBe('small');
      expect(res.fellBack).toBe(true);
      expect(res.skipped).toEqual([{ provider: 'primary', model: 'medium', reason: 'PROVIDER_RATE_LIMITED' }]);
      failFor.set('medium', { status: 500, times: 1 });
      expect((await client().complete({ type: 'plan_tests' }, { prompt: 'x' }, { organizationId: org })).model).toBe('small');
      const rows = (await store.aiUsage.list(org, 10)).items;
      expect(rows.map((r) => r.model)).toEqual(['small', 'small']);
    });

    it('does not fall back when fallback is off, nor on an auth error', async () => {
      const org = await newOrg();
      failFor.set('medium', { status: 429, times: 1 });
      expect(await code(client({ fallback: false }).complete({ type: 'plan_tests' }, { prompt: 'x' }, { organizationId: org }))).toBe('PROVIDER_RATE_LIMITED');
      failFor.set('medium', { status: 401, times: 1 });
      expect(await code(client().complete({ type: 'plan_tests' }, { prompt: 'x' }, { organizationId: org }))).toBe('PROVIDER_AUTH');
      expect((await store.aiUsage.list(org, 10)).items).toHaveLength(0);
    });

    it('when every model fails the error lists what was tried', async () => {
      const org = await newOrg();
      failFor.set('medium', { status: 503, times: 1 });
      failFor.set('small', { status: 429, times: 1 });
      const err = await client().complete({ type: 'plan_tests' }, { prompt: 'x' }, { organizationId: org }).catch((e) => e);
      expect(err).toBeInstanceOf(LlmError);
      expect(err.message).toMatch(/tried primary\/medium: PROVIDER_OVERLOADED; primary\/small: PROVIDER_RATE_LIMITED/);
      expect(err.status).toBe(503);
    });

    it('refuses over the daily budget with a clear BUDGET error, after one 80% alert', async () => {
      alerts.length = 0;
      const org = await newOrg({ ai_budget_daily: 0.0045 });
      const c = client();
      const call = () => c.complete({ type: 'chat_answer' }, { prompt: 'x', maxTokens: 100 }, { organizationId: org });
      for (let i = 0; i < 5; i++) await call(); // 0.001 each: the 4th crosses 80% (0.0036), the 5th still fits
      const err = await call().catch((e) => e);
      expect(err).toBeInstanceOf(AppError);
      expect(err.reason).toBe('BUDGET_EXCEEDED');
      expect(err.status).toBe(429);
      expect(err.message).toMatch(/^BUDGET: the organization daily AI budget \(ai_budget_daily\) of 0\.0045 USD is used up/);
      expect(err.details).toMatchObject({ reason: 'BUDGET_EXCEEDED', scope: 'day', limit_usd: 0.0045 });
      expect(alerts.filter((a) => a.tenant_id === org)).toHaveLength(1);
      expect(alerts[0]).toMatchObject({ name: 'AiBudgetThreshold', severity: 'warning', details: { period: 'daily#2026-11-21', budget_usd: 0.0045 } });
      expect((await store.aiUsage.daily(org, '2026-11-21'))?.request_count).toBe(5);

      // A new UTC day starts a new daily period (and a new alert period).
      now = new Date('2026-11-22T00:00:01Z');
      expect((await call()).model).toBe('small');
      now = new Date('2026-11-21T10:00:00Z');
    });

    it('the monthly budget counts every day of the month', async () => {
      const org = await newOrg({ ai_budget_monthly: 0.002 });
      const call = () => client().complete({ type: 'chat_answer' }, { prompt: 'x', maxTokens: 10 }, { organizationId: org });
      now = new Date('2026-11-02T10:00:00Z');
      await call();
      now = new Date('2026-11-03T10:00:00Z');
      await call();
      expect(await code(call())).toBe('BUDGET_EXCEEDED');
      now = new Date('2026-12-01T10:00:00Z');
      expect(await code(call())).toBe('ok');
      now = new Date('2026-11-21T10:00:00Z');
    });

    it('under budget pressure it falls back to a cheaper model that fits; per-run and per-test caps refuse', async () => {
      const org = await newOrg();
      // Per-run cap 0.0035: after one mid call (0.003) a mid call (worst case ~0.0036) would cross it, a cheap one fits.
      const c = client({ budget: { perRunUsd: 0.0035 } });
      const ctx = { organizationId: org, runId: 'run-pressure' };
      expect((await c.complete({ type: 'plan_tests' }, { prompt: 'x', maxTokens: 200 }, ctx)).model).toBe('medium');
      const second = await c.complete({ type: 'plan_tests' }, { prompt: 'x', maxTokens: 200 }, ctx);
      expect(second.model).toBe('small');
      expect(second.skipped[0]).toMatchObject({ model: 'medium', reason: 'budget: would exceed run limit' });
      expect(await code(c.complete({ type: 'plan_tests' }, { prompt: 'x', maxTokens: 200 }, ctx))).toBe('BUDGET_EXCEEDED');
      // Another run of the same organization has its own cap.
      expect(await code(c.complete({ type: 'plan_tests' }, { prompt: 'x', maxTokens: 200 }, { organizationId: org, runId: 'run-other' }))).toBe('ok');

      const t = client({ budget: { perTestUsd: 0.0015 } });
      const tctx = { organizationId: org, runId: 'run-t', testId: 'test-1' };
      expect(await code(t.complete({ type: 'chat_answer' }, { prompt: 'x', maxTokens: 10 }, tctx))).toBe('ok');
      expect(await code(t.complete({ type: 'chat_answer' }, { prompt: 'x', maxTokens: 10 }, tctx))).toBe('ok');
      const err = await t.complete({ type: 'chat_answer' }, { prompt: 'x', maxTokens: 10 }, tctx).catch((e) => e);
      expect(err.details).toMatchObject({ scope: 'test' });
      expect(err.message).toMatch(/COST_LIMIT_PER_TEST/);
    });

    it('configured caps never exceed the spec limits', async () => {
      const org = await newOrg();
      // perRunUsd 1000 is clamped to 10 USD: the spend row says 10.5 already.
      await store.aiUsage.record({ organization_id: org, run_id: 'run-big', test_id: null, model: 'm', provider: 'p', input_tokens: 1, output_tokens: 1, cost_usd: 10.5, task_type: 'seed', complexity: 'SIMPLE', tier: 'cheap' });
      expect(await code(client({ budget: { perRunUsd: 1000 } }).complete({ type: 'chat_answer' }, { prompt: 'x' }, { organizationId: org, runId: 'run-big' }))).toBe('BUDGET_EXCEEDED');
    });

    it('concurrent calls all land in the daily roll-up (atomic increments)', async () => {
      const org = await newOrg();
      const c = client();
      await Promise.all(Array.from({ length: 8 }, () => c.complete({ type: 'chat_answer' }, { prompt: 'x' }, { organizationId: org })));
      const daily = await store.aiUsage.daily(org, '2026-11-21');
      expect(daily?.request_count).toBe(8);
      expect(daily?.input_tokens).toBe(4800);
      expect(daily?.cost_usd).toBeCloseTo(0.008, 9);
      expect((await store.aiUsage.list(org, 100)).items).toHaveLength(8);
    });

    it('without models the client is "not configured" and calls fail with NO_MODEL (501)', async () => {
      const none = createLlmClient({ models: [], store, clock });
      expect(none.configured).toBe(false);
      const err = await none.complete({ type: 'chat_answer' }, { prompt: 'x' }, { organizationId: 'o' }).catch((e) => e);
      expect(err).toBeInstanceOf(LlmError);
      expect([err.reason, err.code, err.status]).toEqual(['NO_MODEL', 'NOT_CONFIGURED', 501]);
      expect(err.message).toMatch(/^NO_MODEL: no language model is configured; set SVC_LLM_PROVIDERS/);
    });

    it('an empty prompt is refused before any model is called', async () => {
      const before = api.requests.length;
      const err = await client().complete({ type: 'chat_answer' }, { prompt: '  ' }, { organizationId: 'o' }).catch((e) => e);
      expect(err.code).toBe('VALIDATION_FAILED');
      expect(api.requests.length).toBe(before);
    });
  });
}

describe('prompt caching (Anthropic wire format)', () => {
  let anthropic: WireDouble;
  const turns = [
    // First turn writes the long prefix to the cache, the second reads it.
    anthropicMessage('{"tool":"svc_health"}', { input: 100, output: 100, cacheWrite: 800 }),
    anthropicMessage('{"answer":"up"}', { input: 100, output: 100, cacheRead: 800 }),
  ];
  beforeAll(async () => {
    anthropic = await startWireDouble(() => ({ body: turns.shift() }));
  });
  afterAll(() => anthropic.close());

  it('an agent turn asks for the cache, and usage and cost count cached input as the provider bills it', async () => {
    const store = createStore(new FileTable(undefined, { clock }), clock);
    const org = (await store.organizations.create({ name: 'Cache org' }, { userId: 'u', email: 'u@example.com' })).organization.id;
    const client = createLlmClient({ models: [{ provider: anthropicProvider({ apiKey: 'k', baseUrl: anthropic.url }), model: 'claude', tier: 'mid', costPer1kTokens: 0.01 }], store, clock });
    const input = { system: 'tools…', json: true, cache: true } as const;
    const first = await client.complete({ type: 'agent_step' }, { ...input, messages: [{ role: 'user', content: 'Goal' }] }, { organizationId: org });
    const second = await client.complete({ type: 'agent_step' }, { ...input, messages: [{ role: 'user', content: 'Goal' }, { role: 'assistant', content: first.text }, { role: 'user', content: 'Result' }] }, { organizationId: org });
    expect(anthropic.requests.map((r) => JSON.stringify(r.body).includes('"cache_control"'))).toEqual([true, true]);
    // 100 + 800 written at 1.25 + 100 out = 1,200 weighted tokens; then 100 + 800 read at 0.1 + 100 = 280.
    expect([first.inputTokens, first.costUsd]).toEqual([900, 0.012]);
    expect([second.inputTokens, second.costUsd]).toEqual([900, 0.0028]);
    const rows = (await store.aiUsage.list(org, 10)).items;
    expect(rows.map((r) => [r.input_tokens, r.cost_usd]).sort()).toEqual([[900, 0.0028], [900, 0.012]]);
  });
});
