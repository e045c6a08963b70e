import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import chromium from '@sparticuz/chromium';
import pw, { type Browser, type Page } from 'playwright-core';
import { selectorSyntaxError } from '@svc/core/contracts/selector-syntax';
import { INVALID_SELECTORS, VALID_SELECTORS } from './selector-syntax-examples.ts';
import { clickTarget } from '@svc/core/intelligence/generation/grammar/locators';

/**
 * The proof that the save-time selector check never refuses what Playwright accepts: each
 * example goes through real Chromium (page.locator(x).count()) and through the check, and
 * the two must agree — valid ones count without throwing and pass the check; invalid ones
 * throw in Playwright and are refused by the check.
 */

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await pw.chromium.launch({ executablePath: await chromium.executablePath(), args: chromium.args, headless: true });
  page = await browser.newPage();
  await page.setContent('<main id="a"><h1>Shop</h1><ul><li>One</li><li class="item">Two</li></ul><label>Email <input name="q"></label><button>Go</button><a href="https://x/a.pdf">x</a><iframe srcdoc="<button>In</button>"></iframe></main>');
});
afterAll(async () => {
  await browser?.close();
});

/** Playwright's own verdict on a selector: undefined when it is accepted, else its error's first line. */
async function playwrightError(selector: string): Promise<string | undefined> {
  try {
    await page.locator(selector).count();
    return undefined;
  } catch (e) {
    return (e as Error).message.split('\n')[0];
  }
}

describe('selector syntax check against Playwright in Chromium', () => {
  it('accepts every selector Playwright accepts', async () => {
    const disagreements: string[] = [];
    for (const s of VALID_SELECTORS) {
      const pwError = await playwrightError(s);
      const ours = selectorSyntaxError(s);
      if (pwError !== undefined) disagreements.push(`${JSON.stringify(s)}: Playwright refuses it (${pwError}); move it to INVALID_SELECTORS`);
      if (ours !== undefined) disagreements.push(`${JSON.stringify(s)}: Playwright accepts it but the check says ${ours}`);
    }
    expect(disagreements).toEqual([]);
  });

  it('refuses every invalid example, as Playwright does', async () => {
    const disagreements: string[] = [];
    for (const s of INVALID_SELECTORS) {
      if ((await playwrightError(s)) === undefined) disagreements.push(`${JSON.stringify(s)}: Playwright accepts it`);
      if (selectorSyntaxError(s) === undefined) disagreements.push(`${JSON.stringify(s)}: the check passes it`);
    }
    expect(disagreements).toEqual([]);
  });

  it('the grammar writes a selector Playwright parses for a name with quotes, a backtick or >>, and it finds that element', async () => {
    const names = ["it's", 'say "hi"', 'a >> b', 'run `npm`', 'x/y (2)'];
    await page.setContent(names.map((n, i) => `<button id="b${i}">${n.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</button>`).join(''));
    const found: Record<string, string | undefined> = {};
    for (const name of names) {
      const selector = clickTarget(name);
      if (typeof selector !== 'string') throw new Error(`clickTarget wrote a structured locator for ${name}`);
      expect(selectorSyntaxError(selector), selector).toBeUndefined();
      found[name] = (await page.locator(selector).evaluateAll((els) => els.map((e) => e.id).join(','))) || undefined;
    }
    expect(found).toEqual({ "it's": 'b0', 'say "hi"': 'b1', 'a >> b': 'b2', 'run `npm`': 'b3', 'x/y (2)': 'b4' });
  });
});
