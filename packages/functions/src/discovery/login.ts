import type { Page } from 'playwright-core';

export interface LoginOptions {
  url: string;
  username: string;
  password: string;
  /** CSS selectors; any left out are detected from the page's password form. */
  username_selector?: string;
  password_selector?: string;
  submit_selector?: string;
}

const firstLine = (e: unknown) => (e instanceof Error ? e.message : String(e)).split('\n')[0].slice(0, 300);

/**
 * Signs in before crawling: fills the username and password fields (given selectors, or
 * the form holding the page's password field) and submits. Success means the page left
 * the password form; `landed_url` is where it went. The password never appears in the result.
 */
export async function logIn(page: Page, login: LoginOptions, timeoutMs: number): Promise<{ ok: boolean; url: string; landed_url?: string; message?: string }> {
  try {
    await page.goto(login.url, { waitUntil: 'load', timeout: timeoutMs });
    const password = page.locator(login.password_selector ?? 'input[type=password]').first();
    if (!(await password.count())) return { ok: false, url: login.url, message: 'no password field on the login page' };
    const form = password.locator('xpath=ancestor::form[1]');
    const scope = (await form.count()) ? form : page.locator('body');
    const username = login.username_selector
      ? page.locator(login.username_selector).first()
      : scope.locator('input[type=email], input[autocomplete=username], input[name*=user i], input[name*=email i], input[name*=login i], input[type=text], input:not([type])').first();
    if (!(await username.count())) return { ok: false, url: login.url, message: 'no username field on the login page' };
    await username.fill(login.username, { timeout: timeoutMs });
    await password.fill(login.password, { timeout: timeoutMs });
    const submit = login.submit_selector ? page.locator(login.submit_selector).first() : scope.locator('button[type=submit], button:not([type]), input[type=submit]').first();
    const before = page.url();
    if (await submit.count()) await submit.click({ timeout: timeoutMs });
    else await password.press('Enter', { timeout: timeoutMs });
    await page.waitForURL((u) => u.toString() !== before, { timeout: timeoutMs }).catch(() => {});
    await page.waitForLoadState('load', { timeout: timeoutMs }).catch(() => {});
    const stillThere = await page.locator('input[type=password]').first().isVisible().catch(() => false);
    if (stillThere && page.url() === before) return { ok: false, url: login.url, message: 'still on the login form after submitting (wrong credentials?)' };
    return { ok: true, url: login.url, landed_url: page.url() };
  } catch (e) {
    return { ok: false, url: login.url, message: firstLine(e) };
  }
}
