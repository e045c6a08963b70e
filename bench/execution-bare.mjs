// The baseline of `npm run bench:execution`: the same tests as bench/execution.ts, written
// directly against playwright-core, one fresh context per test, N workers. With `trace`, it
// also records what `svc run` records by default: a Playwright trace of every test (DOM
// snapshots, no screencast), kept only when the test fails.
// Usage: node execution-bare.mjs <baseUrl> <tests> <workers> [trace]
import chromium from '@sparticuz/chromium';
import { chromium as pw } from 'playwright-core';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [baseUrl, count, workers, trace] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4] ?? 1), process.argv[5] === 'trace'];
// The switches svc's driver launches @sparticuz/chromium with (playwright-driver.ts), so both
// sides run the same browser the same way: renderers fork from the zygote (no --no-zygote).
const DROPPED = new Set(['--disable-web-security', '--allow-running-insecure-content', '--single-process', '--no-zygote']);
const browser = await pw.launch({ executablePath: await chromium.executablePath(), args: chromium.args.filter((a) => !DROPPED.has(a)), headless: true });

async function loginTest(page) {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel('Email').fill('demo@example.com');
  await page.locator('#password').fill('s3cret!');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/dashboard');
  const text = await page.locator('#welcome').textContent();
  if (text !== 'Welcome, Demo User!') throw new Error('welcome text');
}

async function tableTest(page) {
  await page.goto(`${baseUrl}/table`);
  await page.getByPlaceholder('Filter products').fill('a');
  await page.getByTestId('sort-price').click();
  if ((await page.locator('#price-header').getAttribute('aria-sort')) !== 'ascending') throw new Error('sort');
  if ((await page.locator('tr[data-testid=product-row]').count()) < 1) throw new Error('rows');
}

let next = 0;
let failed = 0;
const started = Date.now();
await Promise.all(Array.from({ length: workers }, async () => {
  while (next < count) {
    const i = next++;
    const context = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 720 } });
    if (trace) await context.tracing.start({ screenshots: false, snapshots: true, sources: false });
    const page = await context.newPage();
    let passed = false;
    try {
      await (i % 2 ? tableTest : loginTest)(page);
      passed = true;
    } catch {
      failed++;
    } finally {
      if (trace) await context.tracing.stop(passed ? {} : { path: join(tmpdir(), `bare-trace-${process.pid}-${i}.zip`) });
      await context.close();
    }
  }
}));
const ms = Date.now() - started;
await browser.close();
process.stdout.write(JSON.stringify({ ms, failed }) + '\n');
