/**
 * A fingerprint in comparison form: normalised strings, token sets, parsed paths and URLs,
 * computed once per element so that scoring a candidate is only set and string arithmetic.
 */
import type { Fingerprint } from '../contracts/fingerprint.ts';
import { type Box, usableBox } from './geometry.ts';
import { parseXpath, type Step } from './path-similarity.ts';
import { identTokens, looksGenerated, maskDigits, normText, words } from './text.ts';
import { parseUrl, type UrlParts } from './url-similarity.ts';

/** Attributes that have their own feature, left out of the generic attribute comparison. */
const COVERED_ATTRIBUTES = new Set([
  'id', 'class', 'name', 'href', 'alt', 'placeholder', 'type', 'title', 'value', 'aria-label', 'role', 'style',
  'data-testid', 'data-test-id', 'data-test', 'data-cy', 'data-qa',
]);

export interface Prepared {
  tag: string;
  /** Coarse kind of element (see tagFamily): survives a <a> → <button> rewrite. */
  family: string;
  id: string;
  idGenerated: boolean;
  idTokens: Set<string>;
  name: string;
  nameTokens: Set<string>;
  testId: string;
  classes: Set<string>;
  /** Normalised visible text, and the same with digit runs masked. */
  text: string;
  textMasked: string;
  textWords: Set<string>;
  /** Every label-like string (text, accessible name, aria-label, title, placeholder, value, alt), masked. */
  labels: string[];
  role: string;
  accessibleName: string;
  ariaLabel: string;
  title: string;
  placeholder: string;
  alt: string;
  value: string;
  type: string;
  href: UrlParts | undefined;
  xpath: Step[];
  idXpath: Step[];
  /** The id the idXpath is anchored at (the element's own id, or its nearest ancestor's). */
  anchor: string;
  box: Box | undefined;
  isButton: boolean | undefined;
  neighborWords: Set<string>;
  neighborTexts: Set<string>;
  attributes: Set<string>;
  /**
   * Every word the element carries, across attributes: text and labels, id, name, test id,
   * classes, href path (identifier tokens split on camelCase and punctuation). Redesigns
   * move words between attributes (`class="search-btn"` → `id="global-search-submit"`).
   */
  tokens: Set<string>;
  /** `tokens` plus the identifier tokens of the id the idXpath is anchored at (an ancestor's id says where the element lives). */
  contextTokens: Set<string>;
  /** The xpath as a canonical key (`html[1]/body[1]/…`), for finding nested elements on the page. */
  xpathKey: string;
  /**
   * Captured by a runner (it has a role, accessible name, test id, ARIA label or attribute
   * map — what sparse attribute records lack): its confidence uses the runtime calibration.
   */
  runtime: boolean;
  /**
   * The other candidates of the page that are the same visual thing (VON Similo): nested
   * within a few levels (by xpath) or occupying nearly the same box. Set by pageContext.
   */
  group?: Prepared[];
  /** Identifies the group on its page (equal ids = same visual element). */
  groupId?: number;
  /** Union of the tokens of the element and its group (set by pageContext). */
  groupTokens?: Set<string>;
}

const wordSet = (s: string) => new Set(words(s));

export function prepare(fp: Fingerprint): Prepared {
  const id = (fp.id ?? '').trim();
  const text = normText(fp.text);
  const textMasked = maskDigits(text);
  const accessibleName = maskDigits(normText(fp.accessibleName));
  const ariaLabel = maskDigits(normText(fp.ariaLabel));
  const title = maskDigits(normText(fp.title));
  const placeholder = maskDigits(normText(fp.placeholder));
  const alt = maskDigits(normText(fp.alt));
  const value = maskDigits(normText(fp.value));
  const labels = [...new Set([textMasked, accessibleName, ariaLabel, title, placeholder, value, alt].filter(Boolean))];
  const neighborTexts = new Set((fp.neighborText ?? []).map((t) => maskDigits(normText(t))).filter(Boolean));
  const neighborWords = new Set<string>();
  for (const t of neighborTexts) for (const w of words(t)) neighborWords.add(w);
  const attributes = new Set<string>();
  for (const [k, v] of Object.entries(fp.attributes ?? {})) {
    const key = k.toLowerCase();
    if (COVERED_ATTRIBUTES.has(key) || looksGenerated(v)) continue;
    attributes.add(`${key}=${v}`);
  }
  const tokens = new Set<string>();
  const addIdent = (v: string | undefined) => {
    if (v) for (const t of identTokens(v)) if (t.length > 1 && !/^\d+$/.test(t)) tokens.add(t);
  };
  for (const v of [fp.id, fp.name, fp.testId, ...(fp.classes ?? []).filter((c) => !looksGenerated(c))]) addIdent(v);
  for (const l of labels) for (const w of words(l)) if (w !== '#' && !/^\d+$/.test(w)) tokens.add(w);
  const href = fp.href?.trim() ? parseUrl(fp.href) : undefined;
  for (const seg of href?.path ?? []) addIdent(seg);
  const tag = (fp.tag ?? '').toLowerCase().trim();
  const idXpath = parseXpath(fp.idXpath);
  const xpath = parseXpath(fp.xpath);
  const anchor = idXpath[0]?.tag.startsWith('#') ? idXpath[0].tag.slice(1) : id;
  const contextTokens = new Set(tokens);
  if (anchor && !looksGenerated(anchor)) for (const t of identTokens(anchor)) if (t.length > 1 && !/^\d+$/.test(t)) contextTokens.add(t);
  return {
    tag,
    family: tagFamily(tag, normText(fp.type), normText(fp.role)),
    id,
    idGenerated: looksGenerated(id),
    idTokens: new Set(identTokens(id).filter((t) => !/^\d+$/.test(t))),
    name: (fp.name ?? '').trim(),
    nameTokens: new Set(identTokens(fp.name ?? '').filter((t) => !/^\d+$/.test(t))),
    testId: (fp.testId ?? '').trim(),
    classes: new Set((fp.classes ?? []).map((c) => c.trim()).filter(Boolean)),
    text,
    textMasked,
    textWords: wordSet(textMasked),
    labels,
    role: normText(fp.role),
    accessibleName,
    ariaLabel,
    title,
    placeholder,
    alt,
    value,
    type: normText(fp.type),
    href,
    xpath,
    idXpath,
    anchor,
    box: usableBox(fp.box) ? fp.box : undefined,
    isButton: fp.isButton,
    neighborWords,
    neighborTexts,
    attributes,
    tokens,
    contextTokens,
    xpathKey: xpath.map((s) => `${s.tag}[${s.index}]`).join('/'),
    runtime: !!(fp.role?.trim() || fp.accessibleName?.trim() || fp.testId?.trim() || fp.ariaLabel?.trim() || Object.keys(fp.attributes ?? {}).length),
  };
}

const FAMILIES: Record<string, string> = {
  a: 'action', button: 'action', summary: 'action', area: 'action',
  textarea: 'field', select: 'field',
  svg: 'graphic', img: 'graphic', picture: 'graphic', canvas: 'graphic', path: 'graphic', use: 'graphic', i: 'graphic', video: 'graphic',
  h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading', h5: 'heading', h6: 'heading',
  span: 'text', p: 'text', label: 'text', strong: 'text', b: 'text', em: 'text', small: 'text', font: 'text', td: 'text', th: 'text',
  li: 'item', option: 'item', dt: 'item', dd: 'item',
  div: 'box', section: 'box', article: 'box', nav: 'box', header: 'box', footer: 'box', main: 'box', aside: 'box', form: 'box', ul: 'box', ol: 'box', table: 'box', tr: 'box', tbody: 'box',
};

/**
 * The kind of an element, coarser than its tag: redesigns swap <a> for <button>, <h2>
 * for <span>, <img> for <svg>, but rarely turn a field into a heading.
 */
export function tagFamily(tag: string, type: string, role: string): string {
  if (!tag) return '';
  if (role === 'button' || role === 'link' || role === 'menuitem' || role === 'tab') return 'action';
  if (tag === 'input') return ['submit', 'button', 'reset', 'image'].includes(type) ? 'action' : 'field';
  return FAMILIES[tag] ?? tag;
}
