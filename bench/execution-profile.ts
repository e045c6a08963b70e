// Ad-hoc in-process profile (not part of `npm run bench:execution`): `npx tsx bench/execution-profile.ts` runs the
// bench suite through runTest + the Playwright driver (no CLI) and prints per-step times; TRACE=0 turns tracing off.
import { startFixtureApp } from '../test/fixtures/app/server.ts';
import { createPlaywrightDriver } from '../packages/functions/src/execution/browser/playwright-driver.ts';
import { runTest } from '../packages/core/src/execution/run-test.ts';

const login = { name: 'login', type: 'ui', timeout_ms: 30000, parameters: {}, steps: [
  { type: 'goto', url: '/login' },
  { type: 'fill', selector: { label: 'Email' }, value: 'demo@example.com' },
  { type: 'fill', selector: '#password', value: 's3cret!' },
  { type: 'click', selector: { role: 'button', name: 'Sign in' } },
  { type: 'wait-for', url: '**/dashboard' },
], assertions: [{ type: 'text', selector: '#welcome', equals: 'Welcome, Demo User!' }] };
const table = { name: 'table', type: 'ui', timeout_ms: 30000, parameters: {}, steps: [
  { type: 'goto', url: '/table' },
  { type: 'fill', selector: { placeholder: 'Filter products' }, value: 'a' },
  { type: 'click', selector: { test_id: 'sort-price' } },
], assertions: [
  { type: 'attribute', selector: '#price-header', attribute: 'aria-sort', equals: 'ascending' },
  { type: 'count', selector: 'tr[data-testid=product-row]', min: 1 },
] };
const app = await startFixtureApp();
const driver = await createPlaywrightDriver();
const N = Number(process.env.N ?? 16);
const trace = process.env.TRACE !== '0';
const stepMs: Record<string, number[]> = {};
const artifacts = { put: async (k: string) => k, read: async () => undefined } as any;
async function go() {
  for (let i = 0; i < N; i++) {
    const t = (i % 2 ? table : login) as any;
    const r = await runTest(`t${i}`, t, { ui: async () => driver, http: (async () => { throw new Error(); }) as any, artifacts, baseUrl: app.url, environment: {}, secrets: {}, traceOnFailure: trace });
    if (r.status !== 'passed') console.log(r.error_message);
    (stepMs[`${t.name}:rest`] ??= []).push(r.duration_ms - r.steps.reduce((a, s) => a + s.duration_ms, 0));
    for (const s of r.steps) (stepMs[`${t.name}:${s.index}:${s.type}`] ??= []).push(s.duration_ms);
  }
}
await go(); // warm
for (const k of Object.keys(stepMs)) stepMs[k] = [];
const t0 = performance.now();
await go();
console.log(`trace=${trace} total ${(performance.now() - t0).toFixed(0)} ms for ${N} tests`);
for (const [k, v] of Object.entries(stepMs)) console.log(k, (v.reduce((a, b) => a + b, 0) / v.length).toFixed(1));
await driver.close();
await app.close();
