import { describe, it, expect, beforeAll, afterAll, beforeEach } from 'vitest';
import { createStore, type Store } from '@svc/core/store/index';
import { createLlmClient, notConfiguredLlmClient } from '@svc/core/llm/client';
import type { LlmClient, LlmProvider } from '@svc/core/llm/types';
import type { Fingerprint } from '@svc/core/contracts/fingerprint';
import { rankCandidates } from '@svc/core/healing/rank';
import { ModelChooser } from '@svc/core/healing/service/model-chooser';
import { HealingService, type HealPlanNotes, type HealProposal } from '@svc/core/healing/service/healing-service';
import type { HealQuery } from '@svc/core/healing/service/knowledge';
import { StepHealer } from '@svc/core/execution/step-healer';
import { FileTable } from '../../../packages/functions/src/local/file-table.ts';
import { openAiProvider } from '../../../packages/functions/src/llm/openai.ts';
import { anthropicProvider } from '../../../packages/functions/src/llm/anthropic.ts';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../../packages/functions/src/execution/browser/playwright-driver.ts';
import { startFixtureApp, DEMO_USER, type FixtureApp } from '../../fixtures/app/server.ts';
import { ctx, failure, step } from '../../execution/ui/helpers.ts';
import { startWireDouble, type RecordedRequest, type WireDouble } from '../../llm/support/wire-double.ts';
import { anthropicMessage, openAiCompletion } from '../../llm/support/formats.ts';
import { parseChoicePrompt, promptOf, readingModel } from './support.ts';

/**
 * The healing model chooser on the fixture app's login page (v1 → v2: #password became
 * #user-password and lost its test id), with fingerprints collected by the real driver in
 * Chromium and the model behind local servers speaking the OpenAI and Anthropic wire
 * formats. The stand-in model answers by reading the prompt it was sent.
 */
const RUN_ID = '0190c0de-0000-7000-8000-0000000000b1';
const TEST_ID = '0190c0de-0000-7000-8000-0000000000b2';

let driver: PlaywrightDriver;
let v1: FixtureApp;
let v2: FixtureApp;
/** #password on v1, recorded by a fill as a run would. */
let stored: Fingerprint;
/** v2's login page with the password typed in (so a leak would show). */
let page: Fingerprint[];
let topConfidence: number;
let openai: WireDouble;
let anthropic: WireDouble;
/** What the stand-in model answers, given the prompt. */
let answer: (prompt: string) => string;
let store: Store;
let orgId: string;

beforeAll(async () => {
  driver = await createPlaywrightDriver({ locateTimeoutMs: 300, assertTimeoutMs: 1_000 });
  [v1, v2] = await Promise.all([startFixtureApp({ version: 'v1' }), startFixtureApp({ version: 'v2' })]);
  const s1 = await driver.openSession({ baseUrl: v1.url, trace: false });
  try {
    await s1.perform(step({ type: 'goto', url: '/login' }), ctx());
    stored = (await s1.perform(step({ type: 'fill', selector: '#password', value: DEMO_USER.password }), ctx())).fingerprint!;
  } finally {
    await s1.close();
  }
  const s2 = await driver.openSession({ baseUrl: v2.url, trace: false });
  try {
    await s2.perform(step({ type: 'goto', url: '/login' }), ctx());
    await s2.perform(step({ type: 'fill', selector: '#user-password', value: DEMO_USER.password }), ctx());
    page = await s2.pageFingerprints();
  } finally {
    await s2.close();
  }
  const ranked = rankCandidates(stored, page);
  expect(page[ranked[0].index].id).toBe('user-password');
  topConfidence = ranked[0].confidence;
  // The situation the chooser is for: the right element on top, but not confidently enough to auto-apply.
  expect(topConfidence).toBeLessThan(0.99);

  const reply = (req: RecordedRequest, wrap: (text: string) => unknown) => ({ body: wrap(answer(promptOf(req))) });
  openai = await startWireDouble((req) => reply(req, (t) => openAiCompletion(t, { prompt: 400, completion: 30 }, req.body?.model)));
  anthropic = await startWireDouble((req) => reply(req, (t) => anthropicMessage(t, { input: 400, output: 30 }, req.body?.model)));
}, 90_000);

afterAll(async () => {
  await driver?.close();
  await Promise.all([v1?.close(), v2?.close(), openai?.close(), anthropic?.close()]);
});

beforeEach(async () => {
  answer = (prompt) => JSON.stringify(readingModel(prompt));
  openai.requests.length = 0;
  anthropic.requests.length = 0;
  const clock = { now: () => new Date() };
  store = createStore(new FileTable(undefined, { clock }), clock);
  orgId = (await store.organizations.create({ name: `Heal ${Math.random()}` }, { userId: 'u1', email: 'u1@example.com' })).organization.id;
});

function llmOn(provider: LlmProvider): LlmClient {
  const clock = { now: () => new Date() };
  return createLlmClient({
    models: [
      { provider, model: 'small-model', tier: 'cheap', costPer1kTokens: 0.001 },
      { provider, model: 'mid-model', tier: 'mid', costPer1kTokens: 0.003 },
    ],
    store,
    clock,
  });
}
const openAiLlm = () => llmOn(openAiProvider({ apiKey: 'sk-test', baseUrl: `${openai.url}/v1`, timeoutMs: 5_000 }));
const anthropicLlm = () => llmOn(anthropicProvider({ apiKey: 'sk-ant-test', baseUrl: anthropic.url, timeoutMs: 5_000 }));

const query: HealQuery = { original: '#password', url: '/login', urlPattern: '/login', failureClass: 'not_found', failureText: 'matched 0 elements', runId: RUN_ID, testId: TEST_ID };
/** Just above the ranker's confidence: inside the default promotion band (0.05). */
const bandThreshold = () => Math.min(1, Math.round((topConfidence + 0.01) * 1000) / 1000);

async function plan(service: HealingService, fp: Fingerprint = stored) {
  const notes: HealPlanNotes = { rejected: [], bestConfidence: 0 };
  const proposals: HealProposal[] = [];
  for await (const p of service.proposals({ query, stored: fp, page: async () => page }, notes)) proposals.push(p);
  return { proposals, notes };
}

describe('the model chooses among the ranked candidates', () => {
  it('picks the v2 password field from sanitised fingerprints; the password never reaches the model; usage is recorded', async () => {
    const chooser = new ModelChooser({ llm: openAiLlm(), organizationId: orgId });
    const ranked = rankCandidates(stored, page);
    const shown = chooser.shortlist(page, ranked);
    expect(shown.length).toBeGreaterThan(1);
    expect(shown.length).toBeLessThanOrEqual(5);

    const verdict = await chooser.choose({ stored, page, shown, runId: RUN_ID, testId: TEST_ID });
    expect(verdict.kind).toBe('chose');
    if (verdict.kind !== 'chose') return;
    expect(page[verdict.candidate.pageIndex]).toMatchObject({ id: 'user-password', name: 'password' });
    expect(verdict.reason).toBe('same input with name=password');

    expect(openai.requests).toHaveLength(1);
    const req = openai.requests[0];
    expect(req.body.response_format).toEqual({ type: 'json_object' });
    expect(req.body.model).toBe(verdict.model);
    const parsed = parseChoicePrompt(promptOf(req));
    expect(parsed.recorded).toMatchObject({ tag: 'input', id: 'password', name: 'password', type: 'password' });
    expect(parsed.candidates).toHaveLength(shown.length);
    expect(parsed.candidates.map((c) => c.id)).toContain('user-password');
    // Password values are dropped, raw attributes are not sent.
    expect(JSON.stringify(req.body)).not.toContain(DEMO_USER.password);
    expect(parsed.recorded.value).toBeUndefined();
    expect(parsed.candidates.every((c) => c.attributes === undefined)).toBe(true);

    const usage = (await store.aiUsage.list(orgId, 10)).items;
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({ task_type: 'heal_selector', run_id: RUN_ID, test_id: TEST_ID, provider: 'openai', input_tokens: 400, output_tokens: 30 });
    expect(['SIMPLE', 'MODERATE']).toContain(usage[0].complexity);
  });

  it('an index out of range, a made-up selector, a fraction or prose is refused, and the ranking stands', async () => {
    const threshold = bandThreshold();
    const without = await plan(new HealingService({ threshold, maxRetries: 3 }));
    expect(without.proposals).toEqual([]);
    expect(without.notes.belowThreshold?.confidence).toBe(topConfidence);

    const chooser = new ModelChooser({ llm: openAiLlm(), organizationId: orgId });
    const bad: Array<[string, RegExp]> = [
      [JSON.stringify({ choice: 7, reason: 'the seventh' }), /candidate 7 is not one of 0–\d/],
      [JSON.stringify({ selector: '#made-up-password', reason: 'I wrote a better selector' }), /choice must be a candidate number or "none"/],
      [JSON.stringify({ choice: 0.5 }), /candidate 0.5 is not one of/],
      ['The password field, I think.', /not a JSON object/],
    ];
    for (const [text, why] of bad) {
      answer = () => text;
      const shown = chooser.shortlist(page, rankCandidates(stored, page));
      const verdict = await chooser.choose({ stored, page, shown });
      expect(verdict).toMatchObject({ kind: 'refused' });
      expect(verdict.kind === 'refused' && verdict.reason).toMatch(why);

      const withModel = await plan(new HealingService({ threshold, maxRetries: 3 }, undefined, chooser));
      expect(withModel.proposals).toEqual(without.proposals);
      expect(withModel.notes.belowThreshold).toEqual(without.notes.belowThreshold);
      expect(withModel.notes.model?.action).toBe('keep');
      expect(withModel.notes.rejected.join('; ')).toMatch(why);
    }
  });

  it('without a model (NO_MODEL) nothing is called and the proposals are the ranker\'s', async () => {
    for (const threshold of [bandThreshold(), Math.max(0.5, topConfidence - 0.05)]) {
      const ranker = await plan(new HealingService({ threshold, maxRetries: 3 }));
      const noModel = await plan(new HealingService({ threshold, maxRetries: 3 }, undefined, new ModelChooser({ llm: notConfiguredLlmClient(), organizationId: orgId })));
      expect(noModel.proposals).toEqual(ranker.proposals);
      expect(noModel.notes).toEqual(ranker.notes);
    }
    // A clear winner (above the threshold, far ahead of the rest) is not sent to a model either.
    const clear = await plan(new HealingService({ threshold: Math.max(0.5, topConfidence - 0.05), maxRetries: 3 }, undefined, new ModelChooser({ llm: openAiLlm(), organizationId: orgId })));
    expect(clear.proposals.map((p) => p.method)).toEqual(['dom_similarity']);
    expect(openai.requests).toHaveLength(0);
  });

  it('disagreeing with an above-threshold ranking on an ambiguous pair withholds the heal for approval', async () => {
    answer = (prompt) => JSON.stringify({ choice: parseChoicePrompt(prompt).candidates.findIndex((c) => c.id === 'user-email'), reason: 'the email field looks right' });
    // margin 1: any runner-up makes the pair ambiguous.
    const chooser = new ModelChooser({ llm: openAiLlm(), organizationId: orgId, margin: 1 });
    const threshold = Math.max(0.5, topConfidence - 0.05);
    const { proposals, notes } = await plan(new HealingService({ threshold, maxRetries: 3 }, undefined, chooser));
    expect(proposals).toEqual([]);
    expect(notes.model).toMatchObject({ action: 'withhold', suggestion: { healed: expect.stringContaining('email') } });
    expect(notes.rejected.join('; ')).toMatch(/not applied without approval: model \([\w-]+\) chose .*email.*the ranker preferred another element/);
  });
});

describe('StepHealer with the chooser, on the v2 page in Chromium', () => {
  async function healPassword(healer: StepHealer) {
    const s = await driver.openSession({ baseUrl: v2.url, trace: false });
    try {
      await s.perform(step({ type: 'goto', url: '/login' }), ctx());
      const item = step({ type: 'fill', selector: '#password', value: DEMO_USER.password });
      const err = await failure(() => s.perform(item, ctx()));
      expect(err.kind).toBe('locator');
      const attempt = await healer.heal({ item, stored, session: s, ctx: ctx(), rerun: (healed) => s.perform(healed as typeof item, ctx()), error: err, testId: TEST_ID, runId: RUN_ID, stepIndex: 2 });
      return { attempt, typed: await s.page.inputValue('#user-password') };
    } finally {
      await s.close();
    }
  }

  it('the model (Anthropic wire format) agrees with the ranker just below the threshold: applied as an llm heal after the re-run passes', async () => {
    const threshold = bandThreshold();
    // Without a model the same step is not healed.
    const plain = await healPassword(new StepHealer({ enabled: true, threshold, maxRetries: 3 }));
    expect(plain.attempt.healed).toBe(false);

    const chooser = new ModelChooser({ llm: anthropicLlm(), organizationId: orgId });
    const { attempt, typed } = await healPassword(new StepHealer({ enabled: true, threshold, maxRetries: 3 }, undefined, chooser));
    expect(attempt.healed).toBe(true);
    if (!attempt.healed) return;
    expect(attempt.heal).toMatchObject({ original: '#password', method: 'llm', confidence: threshold, fromCache: false });
    expect(attempt.heal.healed).toMatch(/password/i);
    expect(typed).toBe(DEMO_USER.password);

    expect(anthropic.requests).toHaveLength(1);
    const body = anthropic.requests[0].body;
    expect(body.system).toMatch(/Answer with one JSON object and nothing else/);
    expect(anthropic.requests[0].headers['x-api-key']).toBe('sk-ant-test');
    expect(JSON.stringify(body)).not.toContain(DEMO_USER.password);
    expect((await store.aiUsage.list(orgId, 10)).items.map((u) => [u.task_type, u.provider])).toEqual([['heal_selector', 'anthropic']]);
  });

  it('the model picks another element: nothing is applied, the reason says it needs approval', async () => {
    answer = (prompt) => JSON.stringify({ choice: parseChoicePrompt(prompt).candidates.findIndex((c) => c.id === 'user-email'), reason: 'looks like a login field' });
    const chooser = new ModelChooser({ llm: openAiLlm(), organizationId: orgId });
    const { attempt, typed } = await healPassword(new StepHealer({ enabled: true, threshold: bandThreshold(), maxRetries: 3 }, undefined, chooser));
    expect(attempt.healed).toBe(false);
    if (attempt.healed) return;
    expect(attempt.reason).toMatch(/^no confident replacement: best candidate .* has confidence/);
    expect(attempt.reason).toMatch(/\(needs approval: model \(.*\) chose .*email.*: looks like a login field\)$/);
    expect(typed).toBe('');
  });

  it('the model agrees, but the ranker is below the promotion band: a suggestion, not a heal', async () => {
    // Threshold 0.01 above the ranker's confidence, band 0.005: the agreement cannot promote.
    const threshold = bandThreshold();
    const chooser = new ModelChooser({ llm: openAiLlm(), organizationId: orgId, promoteBand: 0.005 });
    const { attempt } = await healPassword(new StepHealer({ enabled: true, threshold, maxRetries: 3 }, undefined, chooser));
    expect(attempt.healed).toBe(false);
    if (attempt.healed) return;
    expect(attempt.reason).toMatch(/needs approval: model \(.*\) chose .*password.*: same input with name=password/i);
  });
});
