/**
 * The in-page redesign generator of the runtime calibration set: given a seed, it changes
 * the live DOM the way releases do — ids renamed (prefixes, suffixes, synonyms, generated
 * ids), classes replaced, texts and labels reworded, placeholders tweaked, test ids and
 * names dropped or renamed, elements moved, wrapped, retagged (<a> ↔ <button>), new
 * look-alike fields and buttons inserted, banners added, layout shifted — and removes one
 * to three actionable elements (returned, so their cases are "element removed": any heal
 * there is wrong). Elements carry a `data-k` key set by the capture script so it can tell
 * which v2 element each v1 element became; the capture strips it before anything is ranked.
 *
 * Plain JavaScript text (like the driver's in-page code): page.evaluate serialises
 * functions, and transpiler helpers would not exist in the page.
 */
export const MUTATE_SOURCE = String.raw`
const seed = args.seed >>> 0, intensity = args.intensity;
let s = seed;
const rnd = () => { s = (s + 0x6D2B79F5) >>> 0; let t = s; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
const chance = (p) => rnd() < Math.min(1, p * intensity);
const PHRASES = [
  ['sign in', 'log in', 'login'], ['create account', 'sign up', 'register', 'join now'], ['submit', 'send', 'confirm'],
  ['save changes', 'save', 'update settings'], ['cancel', 'discard', 'go back'], ['delete', 'remove'], ['email', 'email address', 'e-mail'],
  ['password', 'your password'], ['full name', 'name', 'your name'], ['first name', 'given name'], ['last name', 'surname', 'family name'],
  ['street address', 'address', 'street'], ['city', 'town'], ['postal code', 'zip code', 'postcode'], ['state', 'region', 'province'],
  ['country', 'country or region'], ['search', 'find'], ['add to cart', 'add to bag', 'buy'], ['place order', 'complete purchase', 'pay now'],
  ['next', 'continue', 'next page'], ['previous', 'back'], ['subscribe', 'sign me up'], ['learn more', 'read more', 'details'],
  ['comment', 'your comment', 'message'], ['subject', 'topic', 'title'], ['description', 'details', 'describe the issue'],
  ['apply', 'redeem', 'use code'], ['edit', 'modify', 'change'], ['book now', 'reserve', 'confirm booking'], ['choose', 'select', 'pick'],
  ['settings', 'preferences'], ['notifications', 'alerts'], ['new project', 'create project', 'add project'], ['invite user', 'add user', 'invite member'],
  ['start free trial', 'try it free', 'get started'], ['watch demo', 'see demo', 'view demo'], ['talk to sales', 'contact sales'],
  ['post comment', 'submit comment', 'publish'], ['reply', 'respond'], ['more results', 'show more'], ['my account', 'account', 'profile'],
  ['view details', 'see details', 'more info'], ['security code', 'cvc', 'card code'], ['card number', 'credit card number'],
  ['expiry date', 'expiration date', 'valid until'], ['coupon code', 'promo code', 'discount code'], ['special requests', 'requests', 'notes'],
  ['guests', 'number of guests', 'people'], ['attachments', 'attach files', 'files'], ['display name', 'public name', 'screen name'],
  ['time zone', 'timezone'], ['language', 'display language'], ['website', 'homepage', 'url'], ['bio', 'about you', 'about'],
];
const WORDS = { email: ['mail', 'e-mail'], name: ['title', 'label'], password: ['pass', 'pwd', 'secret'], submit: ['send', 'go'], button: ['btn'],
  search: ['find', 'query'], user: ['account', 'member'], link: ['anchor'], new: ['create', 'add'], page: ['pg'], comment: ['reply', 'note'] };
const cap = (t, like) => (like && like[0] === like[0].toUpperCase() ? t.charAt(0).toUpperCase() + t.slice(1) : t);
function rephrase(text) {
  const lower = text.toLowerCase();
  let best;
  for (const g of PHRASES) for (const p of g) if (lower.includes(p) && (!best || p.length > best[1].length)) best = [g, p];
  if (best && rnd() < 0.8) {
    const [g, p] = best;
    const other = pick(g.filter((x) => x !== p));
    const i = lower.indexOf(p);
    return cap(text.slice(0, i) + other + text.slice(i + p.length), text);
  }
  const words = text.split(' ');
  const r = rnd();
  if (r < 0.3 && words.length > 1) return cap(words.slice(0, -1).join(' '), text);
  if (r < 0.55) return 'Your ' + text.charAt(0).toLowerCase() + text.slice(1);
  if (r < 0.75) return text + pick([' now', ' here', ' (required)', ' today']);
  return text.toUpperCase() === text ? text.toLowerCase() : text.toUpperCase();
}
const slug = (t) => t.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
function renameIdent(id) {
  const tokens = id.split(/[-_]|(?=[A-Z])/).filter(Boolean).map((t) => t.toLowerCase());
  const r = rnd();
  if (r < 0.12) return 'r' + Math.floor(rnd() * 1e8).toString(16);
  if (r < 0.3) return pick(['user', 'js', 'main', 'field', 'app', 'c', 'form']) + '-' + tokens.join('-');
  if (r < 0.48) return tokens.join('-') + '-' + pick(['input', 'field', 'btn', 'button', 'link', 'el', 'control']);
  if (r < 0.7) return tokens.map((t) => (WORDS[t] && rnd() < 0.7 ? pick(WORDS[t]) : t)).join(pick(['-', '_']));
  if (r < 0.85) return tokens.map((t, i) => (i ? t.charAt(0).toUpperCase() + t.slice(1) : t)).join('');
  return tokens.slice(0, Math.max(1, tokens.length - 1)).join('-') + '-' + Math.floor(rnd() * 90 + 10);
}
const CLASSES = ['field', 'form-control', 'input', 'c-input', 'button', 'button--primary', 'button--ghost', 'link', 'nav__item', 'card__title', 'is-active', 'mt-2', 'px-4', 'text-sm', 'flex', 'u-hidden-xs', 'control', 'stack'];
const text1 = (el) => el.children.length === 0 && el.textContent.trim() !== '';
const keyed = (el) => el.hasAttribute('data-k');
const removed = [];

// Redesigns change templates, not single instances: a reworded text, a renamed class or a
// renamed field name changes the same way everywhere it occurs (every row's "Edit" button).
const memo = (f) => { const m = new Map(); return (x) => { if (!m.has(x)) m.set(x, f(x)); return m.get(x); }; };
const textChange = memo((t) => (chance(0.3) ? rephrase(t) : t));
const classChange = memo((c) => (chance(0.45) ? (rnd() < 0.2 ? 'css-' + Math.floor(rnd() * 1e6).toString(36) : rnd() < 0.2 ? '' : pick(CLASSES)) : c));
const nameChange = memo((n) => (chance(0.12) ? renameIdent(n) : n));
const all = Array.from(document.body.querySelectorAll('*'));
for (const el of all) {
  const id = el.getAttribute('id');
  if (id && chance(0.55)) {
    const labels = Array.from(document.querySelectorAll('label[for="' + CSS.escape(id) + '"]'));
    if (chance(0.12)) el.removeAttribute('id');
    else {
      const next = renameIdent(id);
      if (!document.getElementById(next)) { el.id = next; for (const l of labels) l.htmlFor = next; }
    }
  }
  if (el.classList.length) el.className = Array.from(el.classList).map(classChange).filter(Boolean).join(' ');
  // Texts with words get reworded; numbers, prices and page numbers are data, not copy.
  if (text1(el) && /[a-z]{3}/i.test(el.textContent) && ['A', 'BUTTON', 'LABEL', 'H1', 'H2', 'H3', 'LEGEND', 'SUMMARY', 'OPTION', 'SPAN', 'P', 'LI', 'TH', 'TD', 'CITE'].includes(el.tagName)) el.textContent = textChange(el.textContent.trim());
  for (const a of ['placeholder', 'aria-label', 'title']) if (el.hasAttribute(a)) el.setAttribute(a, textChange(el.getAttribute(a)));
  if (el.hasAttribute('data-testid')) { if (chance(0.3)) el.removeAttribute('data-testid'); else if (chance(0.08)) el.setAttribute('data-testid', renameIdent(el.getAttribute('data-testid'))); }
  if (el.hasAttribute('name')) el.setAttribute('name', nameChange(el.getAttribute('name')));
  if (el.tagName === 'A' && el.hasAttribute('href') && chance(0.1)) el.setAttribute('href', el.getAttribute('href').replace(/\/?$/, pick(['/', '?ref=nav', '/index'])));
}

// Retag a few links and buttons (<a> ↔ <button>): the same control, rewritten.
for (const el of Array.from(document.querySelectorAll('a[data-k], button[data-k]'))) {
  if (!chance(0.05)) continue;
  const n = document.createElement(el.tagName === 'A' ? 'button' : 'a');
  for (const a of Array.from(el.attributes)) if (a.name !== 'href' && a.name !== 'type') n.setAttribute(a.name, a.value);
  if (n.tagName === 'A') n.setAttribute('href', '#' + slug(el.textContent || 'x'));
  while (el.firstChild) n.appendChild(el.firstChild);
  el.replaceWith(n);
}

// Move rows, cards, list items and controls within their container (or one level up).
const movable = Array.from(document.querySelectorAll('.form-row, .form-check, .card, li, tr, nav > a, form button, fieldset, .row'));
for (let k = Math.floor(rnd() * 4 * intensity); k > 0 && movable.length; k--) {
  const el = pick(movable);
  const parent = el.parentElement;
  if (!parent) continue;
  if (rnd() < 0.25 && parent.parentElement && parent.parentElement !== document.body) parent.parentElement.appendChild(el);
  else parent.insertBefore(el, pick(Array.from(parent.children).concat([null])));
}

// Wrap a few elements (paths change, nothing else does).
for (let k = Math.floor(rnd() * 3 * intensity); k > 0; k--) {
  const el = pick(all);
  if (!el.isConnected || el === document.body || !el.parentElement || ['TR', 'TD', 'TH', 'LI', 'OPTION', 'TBODY', 'THEAD'].includes(el.tagName)) continue;
  const w = document.createElement('div');
  w.className = pick(['wrapper', 'field-wrap', 'stack', 'container']);
  el.replaceWith(w);
  w.appendChild(el);
}

// Look-alikes: new fields and buttons next to existing ones (the near twins that make removals dangerous).
const NEW_FIELDS = ['Phone', 'Company', 'Middle name', 'Referral code', 'VAT number', 'Nickname', 'Secondary email', 'Job title'];
const NEW_BUTTONS = ['Save draft', 'Preview', 'Help', 'Reset', 'Export', 'Share'];
for (let k = Math.floor(rnd() * 3 * intensity); k > 0; k--) {
  const rows = Array.from(document.querySelectorAll('.form-row, .form-check, button, .card'));
  if (!rows.length) break;
  const src = pick(rows);
  const c = src.cloneNode(true);
  for (const n of [c, ...c.querySelectorAll('*')]) { n.removeAttribute('data-k'); n.removeAttribute('data-testid'); }
  const label = src.matches('button') ? pick(NEW_BUTTONS) : pick(NEW_FIELDS);
  const sl = slug(label);
  for (const n of [c, ...c.querySelectorAll('[id]')]) if (n.id) n.id = sl + (n === c ? '' : '-' + Math.floor(rnd() * 100));
  for (const n of [c, ...c.querySelectorAll('[name]')]) if (n.getAttribute && n.getAttribute('name')) n.setAttribute('name', sl.replace(/-/g, '_'));
  const lab = c.matches('button') ? c : c.querySelector('label, h3, button');
  if (lab) lab.textContent = label;
  const inp = c.querySelector('input, textarea, select');
  const lbl = c.querySelector('label');
  if (inp && lbl) { inp.id = sl + '-input'; lbl.htmlFor = inp.id; if (inp.placeholder) inp.placeholder = label; }
  src.parentElement && src.parentElement.insertBefore(c, rnd() < 0.5 ? src : src.nextSibling);
}

// Banners and notices push everything down.
for (let k = Math.floor(rnd() * 2 * intensity); k > 0; k--) {
  const b = document.createElement('div');
  b.className = 'notice';
  b.setAttribute('role', 'status');
  b.textContent = pick(['Free shipping on orders over $50', 'We updated our privacy policy', 'Scheduled maintenance on Sunday', 'New: dark mode']);
  const host = document.querySelector('main') || document.body;
  host.insertBefore(b, host.firstChild);
}
if (chance(0.25)) document.body.style.fontSize = pick(['14px', '16px', '17px']);
if (chance(0.2)) { const m = document.querySelector('main'); if (m) m.style.flexDirection = pick(['column', 'row-reverse']); }

// Remove one to three actionable elements (with their label or row, as a redesign would).
const actionable = Array.from(document.querySelectorAll('a[data-k], button[data-k], input[data-k], select[data-k], textarea[data-k]'));
for (let k = 1 + Math.floor(rnd() * 3); k > 0 && actionable.length; k--) {
  const el = actionable.splice(Math.floor(rnd() * actionable.length), 1)[0];
  if (!el.isConnected) continue;
  const row = el.closest('.form-row, .form-check');
  const id = el.id;
  const labels = id ? Array.from(document.querySelectorAll('label[for="' + CSS.escape(id) + '"]')) : [];
  const gone = row && rnd() < 0.7 ? row : el;
  for (const n of [gone, ...gone.querySelectorAll('[data-k]')]) if (keyed(n)) removed.push(n.getAttribute('data-k'));
  gone.remove();
  if (gone === el && rnd() < 0.8) for (const l of labels) { for (const n of [l, ...l.querySelectorAll('[data-k]')]) if (keyed(n)) removed.push(n.getAttribute('data-k')); l.remove(); }
}
return { removed };
`;

export const mutateFn = new Function('args', MUTATE_SOURCE) as (args: { seed: number; intensity: number }) => { removed: string[] };

/** Keys every element of the body in document order (data-k = its number). */
export const keyFn = new Function(`let i = 0; for (const el of document.body.querySelectorAll('*')) el.setAttribute('data-k', String(i++)); return i;`) as () => number;
