import { selectors, type Locator as PwLocator, type Page } from 'playwright-core';
import { Fingerprint } from '@svc/core/contracts/fingerprint';
import { untraced } from './untraced.ts';

/** pageFingerprints() returns at most this many elements (the rest of a huge page is dropped). */
export const MAX_PAGE_FINGERPRINTS = 20_000;

/**
 * The in-page code, as plain JavaScript text. It is kept out of TypeScript on purpose:
 * page.evaluate serializes functions with toString(), and transpilers (esbuild keepNames,
 * coverage instrumentation) inject helpers such as __name() that do not exist in the page.
 * It defines `api` with one(el), all(cap) and point(x, y); every Fingerprint field is
 * computed here, in one round trip. Tests cover every field (test/execution/ui).
 */
const PAGE_SOURCE = String.raw`
const api = (() => {
  const MAX_TEXT = 500, MAX_NEIGHBOR = 100, MAX_NEIGHBORS = 5, MAX_ATTR = 500, MAX_ATTRS = 50;
  const XHTML = 'http://www.w3.org/1999/xhtml';
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'meta', 'link', 'title', 'head', 'base']);
  const collapse = (s) => (s == null ? '' : String(s)).replace(/\s+/g, ' ').trim();
  const clip = (s, n) => (s.length > n ? s.slice(0, n) : s);
  // Memo tables: one evaluate call computes thousands of fingerprints, and siblings, parents
  // and ancestors are shared — without them wide pages go quadratic.
  const textMemo = new Map(), stepMemo = new Map(), pathMemo = new Map(), idPathMemo = new Map(), ownMemo = new Map();
  const textOf = (el) => {
    let t = textMemo.get(el);
    if (t === undefined) {
      t = collapse(typeof el.innerText === 'string' ? el.innerText : el.textContent).slice(0, 1000);
      textMemo.set(el, t);
    }
    return t;
  };
  const attr = (el, name) => { const v = el.getAttribute(name); return v == null ? undefined : v; };

  const implicitRole = (el) => {
    const tag = el.localName;
    const type = (attr(el, 'type') || '').toLowerCase();
    switch (tag) {
      case 'a': case 'area': return el.hasAttribute('href') ? 'link' : undefined;
      case 'button': return 'button';
      case 'input':
        if (['button', 'submit', 'reset', 'image'].includes(type)) return 'button';
        if (type === 'checkbox') return 'checkbox';
        if (type === 'radio') return 'radio';
        if (type === 'range') return 'slider';
        if (type === 'number') return 'spinbutton';
        if (type === 'search') return el.hasAttribute('list') ? 'combobox' : 'searchbox';
        if (['', 'text', 'email', 'tel', 'url'].includes(type)) return el.hasAttribute('list') ? 'combobox' : 'textbox';
        return undefined;
      case 'textarea': return 'textbox';
      case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'option': return 'option';
      case 'img': return attr(el, 'alt') === '' ? 'presentation' : 'img';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'ul': case 'ol': case 'menu': return 'list';
      case 'li': return 'listitem';
      case 'nav': return 'navigation';
      case 'main': return 'main';
      case 'aside': return 'complementary';
      case 'header': return el.closest('article,aside,main,nav,section') ? undefined : 'banner';
      case 'footer': return el.closest('article,aside,main,nav,section') ? undefined : 'contentinfo';
      case 'form': return 'form';
      case 'section': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : undefined;
      case 'article': return 'article';
      case 'table': return 'table';
      case 'thead': case 'tbody': case 'tfoot': return 'rowgroup';
      case 'tr': return 'row';
      case 'td': return 'cell';
      case 'th': return attr(el, 'scope') === 'row' ? 'rowheader' : 'columnheader';
      case 'dialog': return 'dialog';
      case 'fieldset': case 'details': return 'group';
      case 'summary': return 'button';
      case 'progress': return 'progressbar';
      case 'meter': return 'meter';
      case 'hr': return 'separator';
      case 'p': return 'paragraph';
      case 'output': return 'status';
      case 'dl': return 'list';
      case 'dt': return 'term';
      case 'dd': return 'definition';
      default: return undefined;
    }
  };
  const roleOf = (el) => {
    const explicit = collapse(attr(el, 'role')).split(' ')[0];
    return explicit || implicitRole(el);
  };
  const NAME_FROM_CONTENT = new Set(['button', 'link', 'heading', 'cell', 'columnheader', 'rowheader', 'option', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'checkbox', 'radio', 'switch', 'tooltip', 'treeitem', 'listitem', 'row', 'term']);
  const labelsOf = (el) => (el.labels ? Array.from(el.labels) : []);
  const accessibleName = (el, role, text) => {
    const labelledBy = attr(el, 'aria-labelledby');
    if (labelledBy) {
      const t = collapse(labelledBy.split(/\s+/).map((id) => { const n = document.getElementById(id); return n ? textOf(n) : ''; }).join(' '));
      if (t) return t;
    }
    const ariaLabel = collapse(attr(el, 'aria-label'));
    if (ariaLabel) return ariaLabel;
    const tag = el.localName;
    const type = (attr(el, 'type') || '').toLowerCase();
    if (tag === 'input' && ['submit', 'reset', 'button'].includes(type)) {
      const v = collapse(attr(el, 'value'));
      if (v) return v;
      if (type === 'submit') return 'Submit';
      if (type === 'reset') return 'Reset';
    }
    const labels = collapse(labelsOf(el).map(textOf).join(' '));
    if (labels) return labels;
    if (tag === 'img' || tag === 'area' || (tag === 'input' && type === 'image')) {
      const alt = collapse(attr(el, 'alt'));
      if (alt) return alt;
    }
    if (tag === 'fieldset') { const l = el.querySelector(':scope > legend'); if (l && textOf(l)) return textOf(l); }
    if (tag === 'table') { const c = el.querySelector(':scope > caption'); if (c && textOf(c)) return textOf(c); }
    if (role && NAME_FROM_CONTENT.has(role) && text) return text;
    const title = collapse(attr(el, 'title'));
    if (title) return title;
    const placeholder = collapse(attr(el, 'placeholder'));
    if (placeholder) return placeholder;
    return undefined;
  };

  const isVisible = (el) => {
    const r = el.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0)) return false;
    const st = getComputedStyle(el);
    if (st.visibility !== 'visible') return false;
    if (typeof el.checkVisibility === 'function' && !el.checkVisibility()) return false;
    return true;
  };

  const xpathStep = (n) => {
    if (!stepMemo.has(n)) {
      const parent = n.parentElement;
      const kids = parent ? parent.children : [n];
      const seen = new Map();
      for (const k of kids) {
        const key = k.namespaceURI + ' ' + k.localName;
        const idx = (seen.get(key) || 0) + 1;
        seen.set(key, idx);
        stepMemo.set(k, (k.namespaceURI === XHTML ? k.localName : '*[local-name()="' + k.localName + '"]') + '[' + idx + ']');
      }
    }
    return stepMemo.get(n);
  };
  const special = (n) => (n === document.body ? 'body' : n === document.head ? 'head' : n === document.documentElement ? 'html' : undefined);
  const absXpath = (el) => {
    if (el === document.documentElement) return '/html';
    let p = pathMemo.get(el);
    if (p === undefined) {
      const parent = el.parentElement;
      p = (parent ? absXpath(parent) : '') + '/' + (special(el) || xpathStep(el));
      pathMemo.set(el, p);
    }
    return p;
  };
  const literal = (s) => (s.indexOf('"') < 0 ? '"' + s + '"' : s.indexOf("'") < 0 ? "'" + s + "'" : undefined);
  const idXpath = (el) => {
    if (idPathMemo.has(el)) return idPathMemo.get(el);
    let p;
    const id = attr(el, 'id');
    const lit = id ? literal(id) : undefined;
    if (lit && document.getElementById(id) === el) p = '//*[@id=' + lit + ']';
    else if (el.parentElement) {
      const up = idXpath(el.parentElement);
      p = up === undefined ? undefined : up + '/' + (special(el) || xpathStep(el));
    }
    idPathMemo.set(el, p);
    return p;
  };

  let headings;
  const nearestHeading = (el) => {
    if (!headings) headings = Array.from(document.querySelectorAll('h1,h2,h3,h4,h5,h6,[role="heading"]'));
    let lo = 0, hi = headings.length - 1, found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const h = headings[mid];
      if (h === el || h.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) { found = mid; lo = mid + 1; } else hi = mid - 1;
    }
    while (found >= 0 && (headings[found] === el || headings[found].contains(el))) found--;
    return found >= 0 ? textOf(headings[found]) : '';
  };
  const siblingText = (el, dir) => {
    let n = el;
    for (let hops = 0; hops < 3; hops++) {
      n = dir < 0 ? n.previousElementSibling : n.nextElementSibling;
      if (!n) return '';
      if (SKIP.has(n.localName)) continue;
      const t = textOf(n);
      if (t) return t;
    }
    return '';
  };
  const ownText = (el) => {
    if (!el) return '';
    let t = ownMemo.get(el);
    if (t === undefined) {
      let s = '';
      for (const c of el.childNodes) if (c.nodeType === 3) s += ' ' + c.nodeValue;
      t = collapse(s).slice(0, MAX_NEIGHBOR);
      ownMemo.set(el, t);
    }
    return t;
  };
  const neighborText = (el) => {
    const out = [];
    const add = (t) => { t = clip(collapse(t), MAX_NEIGHBOR); if (t && !out.includes(t) && out.length < MAX_NEIGHBORS) out.push(t); };
    for (const l of labelsOf(el)) add(textOf(l));
    add(siblingText(el, -1));
    add(siblingText(el, 1));
    add(nearestHeading(el));
    add(ownText(el.parentElement));
    return out;
  };

  const testIdOf = (el) => {
    for (const a of ['data-testid', 'data-test-id', 'data-test', 'data-cy', 'data-qa']) { const v = attr(el, a); if (v) return v; }
    return undefined;
  };

  const one = (el) => {
    if (!el || el.nodeType !== 1) return undefined;
    const tag = el.localName;
    const type = attr(el, 'type');
    const secret = tag === 'input' && (type || '').toLowerCase() === 'password';
    const text = clip(textOf(el), MAX_TEXT);
    const role = roleOf(el);
    const fp = { tag };
    const set = (k, v) => { if (v !== undefined && v !== null && v !== '') fp[k] = v; };
    set('id', attr(el, 'id'));
    set('name', attr(el, 'name'));
    const classes = Array.from(el.classList || []);
    if (classes.length) fp.classes = classes;
    set('text', text);
    set('role', role);
    set('accessibleName', clip(accessibleName(el, role, text) || '', MAX_TEXT));
    set('testId', testIdOf(el));
    set('href', attr(el, 'href'));
    set('alt', attr(el, 'alt'));
    set('placeholder', attr(el, 'placeholder'));
    set('type', type);
    set('title', attr(el, 'title'));
    if (!secret) {
      if (tag === 'input' || tag === 'textarea' || tag === 'select') fp.value = clip(String(el.value), MAX_TEXT);
      else set('value', attr(el, 'value'));
    }
    set('ariaLabel', attr(el, 'aria-label'));
    const attributes = {};
    let count = 0;
    for (const a of Array.from(el.attributes)) {
      if (count++ >= MAX_ATTRS) break;
      if (secret && a.name === 'value') continue;
      attributes[a.name] = clip(a.value, MAX_ATTR);
    }
    fp.attributes = attributes;
    fp.neighborText = neighborText(el);
    fp.xpath = absXpath(el);
    set('idXpath', idXpath(el));
    const r = el.getBoundingClientRect();
    fp.box = { x: r.x + window.scrollX, y: r.y + window.scrollY, width: r.width, height: r.height };
    fp.isButton = tag === 'button' || (tag === 'input' && ['submit', 'button', 'reset', 'image'].includes((type || '').toLowerCase())) || role === 'button';
    fp.visible = isVisible(el);
    return fp;
  };

  const all = (cap) => {
    const out = [];
    const root = document.body || document.documentElement;
    const els = root.querySelectorAll('*');
    for (let i = 0; i < els.length && out.length < cap; i++) {
      const el = els[i];
      if (SKIP.has(el.localName) || !isVisible(el)) continue;
      out.push(one(el));
    }
    return out;
  };

  const point = (x, y) => one(document.elementFromPoint(x, y));

  return { one, all, point };
})();
`;

// new Function, not a function literal: see PAGE_SOURCE.
const allFn = new Function('cap', `${PAGE_SOURCE}\nreturn api.all(cap);`) as (cap: number) => unknown[];
const pointFn = new Function('p', `${PAGE_SOURCE}\nreturn api.point(p.x, p.y);`) as (p: { x: number; y: number }) => unknown;

/**
 * Reading an element's fingerprint through Playwright's element APIs (locator.evaluate and
 * evaluateAll) runs in the page's main world, and makes Playwright inject its selector
 * engine (~340 KB of script) there on every new document, next to the isolated world its
 * own actions use. That cost ~70 ms of CPU per test of the bench suite. This selector
 * engine runs in that isolated world instead (contentScript): chained after a locator,
 * `svc_fp=one` resolves, for the element the locator found, to a detached element whose
 * text is the fingerprint as JSON; `svc_fp=read` also carries the element's innerText,
 * and `svc_fp=read:<attribute>` that attribute; `svc_fp=options:label|value` a <select>'s
 * options and `svc_fp=file-input` whether it (or the control of a <label>) is a file input,
 * which the select and upload steps check. The page's DOM is never touched.
 */
const FINGERPRINT_ENGINE = 'svc_fp';
const ENGINE_SOURCE = `(() => {
  const makeApi = () => { ${PAGE_SOURCE}\nreturn api; };
  const fingerprint = (el) => { try { return makeApi().one(el); } catch (e) { return undefined; } };
  const run = (el, body) => {
    if (body === 'one') return fingerprint(el) ?? null;
    if (body.startsWith('options:')) {
      if (!(el instanceof HTMLSelectElement)) return { isSelect: false, options: [] };
      return { isSelect: true, options: Array.from(el.options).map((o) => (body === 'options:label' ? o.label : o.value)) };
    }
    if (body === 'file-input') {
      const input = el instanceof HTMLLabelElement ? el.control : el;
      return { isFileInput: input instanceof HTMLInputElement && input.type === 'file' };
    }
    if (el.namespaceURI !== 'http://www.w3.org/1999/xhtml') return { ok: false };
    const attribute = body.startsWith('read:') ? decodeURIComponent(body.slice(5)) : undefined;
    return { ok: true, value: attribute === undefined ? el.innerText : el.getAttribute(attribute), fp: fingerprint(el) };
  };
  const queryAll = (root, body) => {
    const out = document.createElement('svc-fingerprint');
    out.textContent = JSON.stringify(run(root, body));
    return [out];
  };
  return { queryAll, query: (root, body) => queryAll(root, body)[0] };
})()`;

let engineRegistered: Promise<void> | undefined;
/**
 * Registers the fingerprint engine with Playwright, once per process. Contexts created
 * before it settles do not have it, so the driver awaits it before launching the browser.
 */
export function registerFingerprintEngine(): Promise<void> {
  return (engineRegistered ??= selectors.register(FINGERPRINT_ENGINE, ENGINE_SOURCE, { contentScript: true }));
}

/** Reads what the engine computed for the single element `locator` finds (waits at most timeoutMs for it). */
/**
 * What the engine computed for the single element `locator` finds. Playwright's own
 * waiting and strictness apply: it waits up to timeoutMs for a match and throws a strict
 * mode violation when several match. `body` is an engine body: FINGERPRINT or readBody().
 * Kept out of traces (untraced).
 */
export async function engineRead(locator: PwLocator, body: string, timeoutMs: number): Promise<unknown> {
  const text = await untraced(locator.page(), () => locator.locator(`${FINGERPRINT_ENGINE}=${body}`).textContent({ timeout: Math.max(1, timeoutMs) }));
  return text ? JSON.parse(text) : undefined;
}

/** The engine body that reads the element's fingerprint. */
export const FINGERPRINT = 'one';
/** The engine body that reads an assertion's value (innerText, or the attribute) and the fingerprint. */
// Encoded: an attribute name may hold characters a selector body cannot (">>", quotes).
export const readBody = (attribute?: string): string => (attribute === undefined ? 'read' : `read:${encodeURIComponent(attribute)}`);

/** The options of the <select> the locator finds, by label or value (isSelect false for another element). */
export async function selectOptions(locator: PwLocator, by: 'label' | 'value', timeoutMs: number): Promise<{ isSelect: boolean; options: string[] }> {
  return (await engineRead(locator, `options:${by}`, timeoutMs)) as { isSelect: boolean; options: string[] };
}

/** Whether the element the locator finds is a file input, or a <label> of one. */
export async function isFileInput(locator: PwLocator, timeoutMs: number): Promise<boolean> {
  return ((await engineRead(locator, 'file-input', timeoutMs)) as { isFileInput: boolean }).isFileInput;
}

/** How long a read that follows a count of 1 may wait: the element was there a moment ago. */
export const FOLLOW_UP_MS = 1_000;

/** Parses in-page output through the schema (drops nothing we produce; guards the type). */
export const parseFingerprint = (raw: unknown): Fingerprint | undefined => {
  if (!raw) return undefined;
  const r = Fingerprint.safeParse(raw);
  return r.success ? r.data : undefined;
};

/** An assertion's value and fingerprint from a readBody() result; undefined when the element is not (X)HTML. */
export function parseRead(raw: unknown): { value: string | null; fingerprint?: Fingerprint } | undefined {
  const r = raw as { ok?: boolean; value?: string | null; fp?: unknown } | null | undefined;
  if (!r?.ok) return undefined;
  const fingerprint = parseFingerprint(r.fp);
  return { value: r.value ?? null, ...(fingerprint && { fingerprint }) };
}

/** The fingerprint of the single element a locator resolves to; undefined when it cannot be read in time. */
export async function captureFingerprint(locator: PwLocator, timeoutMs: number): Promise<Fingerprint | undefined> {
  try {
    return parseFingerprint(await engineRead(locator, FINGERPRINT, timeoutMs));
  } catch {
    return undefined; // a fingerprint is best effort: it never fails a step
  }
}

/**
 * An assertion's probe and the fingerprint: the element's innerText or an attribute,
 * exactly as Playwright reads them, when exactly one (X)HTML element matches; undefined
 * otherwise, and the caller falls back to Playwright's own (waiting) call.
 */
export async function readWithFingerprint(locator: PwLocator, attribute?: string): Promise<{ value: string | null; fingerprint?: Fingerprint } | undefined> {
  if ((await untraced(locator.page(), () => locator.count())) !== 1) return undefined;
  try {
    return parseRead(await engineRead(locator, readBody(attribute), FOLLOW_UP_MS));
  } catch {
    return undefined; // gone or duplicated since the count: the caller's own call decides
  }
}

/** The fingerprint of the topmost element at a viewport point (used after a vision fallback). */
export async function fingerprintAt(page: Page, x: number, y: number): Promise<Fingerprint | undefined> {
  try {
    return parseFingerprint(await untraced(page, () => page.evaluate(pointFn, { x, y })));
  } catch {
    return undefined;
  }
}

/** Fingerprints of every visible element of the page, in document order, in one evaluate call. */
export async function pageFingerprints(page: Page, cap = MAX_PAGE_FINGERPRINTS): Promise<Fingerprint[]> {
  const raw = await untraced(page, () => page.evaluate(allFn, Math.min(cap, MAX_PAGE_FINGERPRINTS)));
  return raw.map(parseFingerprint).filter((f): f is Fingerprint => f !== undefined);
}
