import type { Fingerprint } from '../../contracts/fingerprint.ts';
import type { PageSnapshot } from './types.ts';

/**
 * Page type from what is on the page, checked from most to least specific; the URL only
 * breaks ties. Types: auth, checkout, search, form, dashboard, list, detail, settings,
 * error, api, landing, content.
 */
export function classifyPage(p: Pick<PageSnapshot, 'url' | 'title' | 'forms' | 'lists' | 'listItems' | 'headings' | 'status' | 'json' | 'depth'>): string {
  const url = p.url.toLowerCase();
  const text = `${p.title} ${p.headings.join(' ')}`.toLowerCase();
  const hasPassword = p.forms.some((f) => f.fields.some((x) => x.type === 'password'));
  if ((p.status ?? 200) >= 400 || /\b(404|not found|error)\b/.test(p.title.toLowerCase())) return 'error';
  if (p.json) return 'api';
  if (hasPassword || /\/(login|signin|sign-in|signup|sign-up|register|auth)\b/.test(url)) return 'auth';
  if (/\b(checkout|cart|basket|payment)\b/.test(url + ' ' + text)) return 'checkout';
  if (/\bsearch\b/.test(url) || p.forms.some((f) => f.fields.some((x) => x.type === 'search' || x.name === 'q'))) return 'search';
  if (/\b(settings|preferences|profile|account)\b/.test(url)) return 'settings';
  if (/\b(dashboard|overview|admin)\b/.test(url + ' ' + text)) return 'dashboard';
  const realForms = p.forms.filter((f) => !f.standalone && f.fields.length >= 2);
  if (realForms.length) return 'form';
  if (p.listItems >= 5 || (p.lists > 0 && p.forms.some((f) => f.standalone))) return 'list';
  if (p.depth === 0) return 'landing';
  if (/\/[^/]+\/[^/]+$/.test(new URL(p.url).pathname)) return 'detail';
  return 'content';
}

const INTERACTIVE_ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'textbox', 'searchbox', 'combobox', 'listbox', 'slider', 'spinbutton', 'switch', 'tab', 'menuitem', 'option']);
const INTERACTIVE_TAGS = new Set(['a', 'button', 'input', 'select', 'textarea', 'summary']);

export function isInteractive(fp: Fingerprint): boolean {
  if (fp.visible === false) return false;
  if (fp.tag === 'input' && fp.type === 'hidden') return false;
  if (fp.tag === 'a' && !fp.href) return false;
  return (!!fp.tag && INTERACTIVE_TAGS.has(fp.tag)) || (!!fp.role && INTERACTIVE_ROLES.has(fp.role));
}

/** Element category: link, navigation (a link inside nav), button, input, checkbox, select, textarea. */
export function elementCategory(fp: Fingerprint): string {
  const tag = fp.tag ?? '';
  const type = (fp.type ?? '').toLowerCase();
  if (tag === 'a' || fp.role === 'link') return fp.xpath && /\/nav(\[\d+\])?\//.test(fp.xpath) ? 'navigation' : 'link';
  if (tag === 'button' || fp.role === 'button' || fp.isButton) return 'button';
  if (tag === 'select' || fp.role === 'combobox' || fp.role === 'listbox') return 'select';
  if (tag === 'textarea') return 'textarea';
  if (type === 'checkbox' || type === 'radio' || fp.role === 'checkbox' || fp.role === 'radio') return 'checkbox';
  if (tag === 'input') return 'input';
  return fp.role ?? tag ?? 'other';
}
