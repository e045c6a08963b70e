import type { Locator, Step } from '../../contracts/steps.ts';
import type { FieldInfo, FormInfo, PageSnapshot } from './types.ts';
import { onPathPattern } from './urls.ts';

/** A flow inferred from the crawl, with steps in the product's test-step format. */
export interface InferredFlow {
  name: string;
  flow_type: 'authentication' | 'form' | 'navigation' | 'crud' | 'search';
  steps: Step[];
  complexity_score: number;
  /** The page the flow starts on. */
  url: string;
}

/** The most robust locator for a form field (label, placeholder, id, name). */
export function fieldLocator(f: FieldInfo): Locator | undefined {
  if (f.label) return { label: f.label, exact: true };
  if (f.placeholder) return { placeholder: f.placeholder, exact: true };
  if (f.id && /^[A-Za-z][\w-]*$/.test(f.id)) return { css: `#${f.id}` };
  if (f.name && !/["\\\n]/.test(f.name)) return { css: `${f.tag}[name="${f.name}"]` };
  return undefined;
}

/** The value of a sign-in form's password field: never the real one, the PASSWORD secret (`SVC_SECRET_PASSWORD` for `svc run`). */
export const PASSWORD_SECRET = '{{secrets.PASSWORD}}';
/** The user name of a sign-in form when discovery was not given one: the USERNAME secret. */
export const USERNAME_SECRET = '{{secrets.USERNAME}}';

/** A plausible value for a field, so a generated test can submit the form. */
export function sampleValue(f: FieldInfo): string {
  const hint = `${f.type} ${f.name ?? ''} ${f.label ?? ''} ${f.placeholder ?? ''}`.toLowerCase();
  if (f.type === 'email' || hint.includes('email')) return 'discovery@example.com';
  if (f.type === 'password') return PASSWORD_SECRET;
  if (f.type === 'number' || /\b(age|qty|quantity|amount|count)\b/.test(hint)) return '1';
  if (f.type === 'tel' || hint.includes('phone')) return '+15550100';
  if (f.type === 'url') return 'https://example.com';
  if (f.type === 'date') return '2024-01-15';
  if (hint.includes('name')) return 'Discovery User';
  return 'Discovery sample';
}

const CREATE_HINT = /\b(new|add|create|todo|what needs)|new-|add-/i;
const round = (n: number) => Math.round(n * 100) / 100;
const FILLABLE = new Set(['text', 'email', 'password', 'search', 'tel', 'url', 'number', 'date', '']);

function formSteps(page: PageSnapshot, form: FormInfo, username?: string): Step[] {
  const steps: Step[] = [{ type: 'goto', url: page.url }];
  // A sign-in that uses a made-up user name cannot succeed, and its outcome is checked.
  if (form.fields.some((f) => f.type === 'password')) username ??= USERNAME_SECRET;
  for (const field of form.fields) {
    const selector = fieldLocator(field);
    if (!selector) continue;
    if (field.tag === 'select') {
      const value = field.options?.find((o) => o !== '');
      if (value !== undefined) steps.push({ type: 'select', selector, value } as Step);
    } else if (field.type === 'checkbox') {
      if (field.required) steps.push({ type: 'check', selector });
    } else if (field.tag === 'textarea' || FILLABLE.has(field.type)) {
      const value = username && field.type !== 'password' && /email|user|login/i.test(`${field.name} ${field.label} ${field.type}`) ? username : sampleValue(field);
      steps.push({ type: 'fill', selector, value });
    }
  }
  if (form.submitText) steps.push({ type: 'click', selector: { role: 'button', name: form.submitText, exact: true } });
  else steps.push({ type: 'press', key: 'Enter' });
  return steps;
}

/** Where discovery's own sign-in started and where it landed. */
export interface SignedIn {
  loginUrl: string;
  landedUrl: string;
}

/**
 * What a sign-in flow checks after submitting. A sign-in that worked leaves the password
 * form (the same test discovery's own sign-in passes), so the password field must be gone;
 * when discovery signed in on this very page, the flow must also land where it did. A wrong
 * password, or a form that rejects its input, fails the test instead of passing unnoticed.
 */
function signedInChecks(page: PageSnapshot, form: FormInfo, signedIn: SignedIn | undefined): Step[] {
  const checks: Step[] = [];
  const password = form.fields.find((f) => f.type === 'password');
  const selector = password && fieldLocator(password);
  if (selector) checks.push({ type: 'assert', assertion: { type: 'hidden', selector }, name: 'signed in: the password field is gone' });
  if (signedIn && signedIn.loginUrl === page.url) {
    const landed = new URL(signedIn.landedUrl).pathname;
    if (landed !== new URL(page.url).pathname) checks.push({ type: 'assert', assertion: { type: 'url', contains: landed }, name: `lands on ${landed}, as discovery's sign-in did` });
  } else if (new URL(page.url).pathname !== '/') {
    // Where a sign-in lands is unknown (discovery did not sign in), but not on its own form's
    // page: an app that answers a wrong password with an error page without the form (a 401)
    // hid the password field too, and the test passed with any password (found by QA).
    const path = new URL(page.url).pathname;
    checks.push({ type: 'assert', assertion: { type: 'url', matches: `^(?!${onPathPattern(path)})` }, name: `signed in: it left ${path}` });
  }
  return checks;
}

/**
 * Flows from the crawled pages: a login flow per password form (checking that it signs in), a form flow per other
 * form, a create-item (CRUD) flow where a standalone input feeds a list, and one
 * navigation flow through the most important pages.
 */
export function inferFlows(pages: readonly PageSnapshot[], opts: { username?: string; importance?: Map<string, number>; signedIn?: SignedIn } = {}): InferredFlow[] {
  const flows: InferredFlow[] = [];
  const seenForms = new Set<string>();
  for (const page of pages) {
    if (page.partial) continue;
    for (const form of page.forms) {
      const signature = `${form.standalone ? 'S' : 'F'}|${new URL(form.action || page.url, page.url).pathname}|${form.fields.map((f) => f.name ?? f.id ?? f.type).join(',')}`;
      if (seenForms.has(signature)) continue;
      seenForms.add(signature);
      const isLogin = form.fields.some((f) => f.type === 'password');
      if (form.standalone) {
        const field = form.fields[0];
        const selector = field && fieldLocator(field);
        // Only inputs that create something (new-todo, "Add item") make a CRUD flow; filters do not.
        if (!selector || !page.lists || !CREATE_HINT.test(`${field.id ?? ''} ${field.name ?? ''} ${field.label ?? ''} ${field.placeholder ?? ''}`)) continue;
        const item = 'Discovered item';
        flows.push({
          name: `Create an item on ${new URL(page.url).pathname}${new URL(page.url).hash}`,
          flow_type: 'crud',
          url: page.url,
          complexity_score: 0.3,
          steps: [
            { type: 'goto', url: page.url },
            { type: 'fill', selector, value: item },
            { type: 'press', selector, key: 'Enter' },
            { type: 'assert', assertion: { type: 'visible', selector: { text: item, exact: true } } },
          ],
        });
        continue;
      }
      const steps = formSteps(page, form, opts.username);
      if (steps.length < 3) continue;
      if (isLogin) steps.push(...signedInChecks(page, form, opts.signedIn));
      const isSearch = form.fields.some((f) => f.type === 'search' || f.name === 'q');
      flows.push({
        name: isLogin ? `Sign in (${new URL(page.url).pathname})` : `${isSearch ? 'Search' : 'Submit form'} on ${new URL(page.url).pathname}${form.id ? ` (#${form.id})` : ''}`,
        flow_type: isLogin ? 'authentication' : isSearch ? 'search' : 'form',
        url: page.url,
        complexity_score: round(Math.min(1, 0.2 + form.fields.length * 0.08 + (form.method.toLowerCase() === 'post' ? 0.1 : 0))),
        steps,
      });
    }
  }
  const navigable = pages.filter((p) => !p.partial && !p.json && (p.status ?? 200) < 400 && p.depth > 0);
  if (navigable.length) {
    const start = pages[0];
    const ranked = [...navigable].sort((a, b) => (opts.importance?.get(b.url) ?? 0) - (opts.importance?.get(a.url) ?? 0)).slice(0, 5);
    const steps: Step[] = [{ type: 'goto', url: start.url }];
    for (const p of ranked) {
      steps.push({ type: 'goto', url: p.url });
      steps.push({ type: 'assert', assertion: p.title ? { type: 'title', equals: p.title } : { type: 'url', contains: new URL(p.url).pathname } });
    }
    flows.push({ name: 'Visit the main pages', flow_type: 'navigation', url: start.url, complexity_score: round(0.1 + ranked.length * 0.05), steps });
  }
  return flows;
}
