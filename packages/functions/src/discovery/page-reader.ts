import type { Page } from 'playwright-core';
import type { FormInfo } from '@svc/core/intelligence/discovery/types';
import type { LinkInfo } from '@svc/core/intelligence/discovery/safety';

/**
 * In-page code as plain JavaScript text (see execution/browser/fingerprint.ts for why it
 * is not TypeScript): links, forms with their fields and labels, and page statistics.
 */
const READ_PAGE = String.raw`(() => {
  const collapse = (s) => (s == null ? '' : String(s)).replace(/\s+/g, ' ').trim();
  const labelOf = (el) => {
    if (el.labels && el.labels.length) return collapse(el.labels[0].innerText || el.labels[0].textContent);
    const aria = el.getAttribute('aria-label');
    if (aria) return collapse(aria);
    const by = el.getAttribute('aria-labelledby');
    if (by) { const t = by.split(/\s+/).map((id) => document.getElementById(id)).filter(Boolean).map((n) => n.textContent).join(' '); if (t) return collapse(t); }
    return undefined;
  };
  const fieldOf = (el) => ({
    tag: el.localName,
    type: (el.localName === 'input' ? (el.getAttribute('type') || 'text') : el.localName).toLowerCase(),
    name: el.getAttribute('name') || undefined,
    id: el.id || undefined,
    label: labelOf(el),
    placeholder: el.getAttribute('placeholder') || undefined,
    required: el.required || undefined,
    options: el.localName === 'select' ? Array.from(el.options).map((o) => o.value).slice(0, 50) : undefined,
  });
  const visible = (el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el); return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
  const FIELDS = 'input:not([type=hidden]):not([type=submit]):not([type=button]):not([type=reset]):not([type=image]),select,textarea';
  const links = Array.from(document.querySelectorAll('a[href],area[href]')).slice(0, 2000).map((a) => ({
    href: a.href, text: collapse(a.innerText || a.textContent || a.getAttribute('aria-label') || '').slice(0, 200), download: a.hasAttribute('download') || undefined,
  }));
  const forms = Array.from(document.forms).slice(0, 50).map((f) => {
    const submit = f.querySelector('button[type=submit],button:not([type]),input[type=submit]');
    return {
      method: (f.getAttribute('method') || 'get').toLowerCase(),
      action: f.action || location.href,
      id: f.id || undefined,
      fields: Array.from(f.querySelectorAll(FIELDS)).filter(visible).slice(0, 50).map(fieldOf),
      submitText: submit ? collapse(submit.innerText || submit.value || submit.getAttribute('aria-label') || '') || undefined : undefined,
    };
  });
  const standalone = Array.from(document.querySelectorAll('input[type=text],input:not([type])')).filter((el) => !el.form && visible(el)).slice(0, 10).map((el) => ({
    method: 'none', action: '', id: el.id || undefined, fields: [fieldOf(el)], standalone: true,
  }));
  const lists = Array.from(document.querySelectorAll('ul,ol,table')).filter((l) => !l.closest('nav'));
  const body = document.body;
  const pre = body && body.children.length === 1 && body.firstElementChild.localName === 'pre' ? body.firstElementChild.textContent : null;
  // Chromium renders a JSON response as a document of that content type (or a lone <pre>).
  let json = /json/i.test(document.contentType || '');
  if (!json && pre != null) { try { JSON.parse(pre); json = true; } catch {} }
  return {
    title: document.title || '',
    headings: Array.from(document.querySelectorAll('h1,h2')).slice(0, 10).map((h) => collapse(h.innerText || h.textContent).slice(0, 200)),
    links,
    forms: forms.concat(standalone),
    lists: lists.length,
    listItems: lists.reduce((n, l) => n + l.querySelectorAll('li,tr').length, 0),
    textLength: body ? (body.innerText || '').length : 0,
    json,
  };
})()`;

export interface PageReading {
  title: string;
  headings: string[];
  links: LinkInfo[];
  forms: FormInfo[];
  lists: number;
  listItems: number;
  textLength: number;
  json: boolean;
}

export async function readPage(page: Page): Promise<PageReading> {
  return (await page.evaluate(READ_PAGE)) as PageReading;
}
