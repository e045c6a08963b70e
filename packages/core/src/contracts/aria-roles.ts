import { didYouMean } from './did-you-mean.ts';

/**
 * The ARIA roles Playwright's role engine knows (WAI-ARIA 1.2 plus the HTML-AAM ones it
 * computes: generic, code, mark, …). An element's role attribute counts only when it
 * names one of these, so a role locator with any other name never matches: it is refused
 * when the test is written, not found out as a locator timeout when it runs.
 */
export const ARIA_ROLES = [
  'alert', 'alertdialog', 'application', 'article', 'banner', 'blockquote', 'button', 'caption', 'cell', 'checkbox',
  'code', 'columnheader', 'combobox', 'complementary', 'contentinfo', 'definition', 'deletion', 'dialog', 'directory',
  'document', 'emphasis', 'feed', 'figure', 'form', 'generic', 'grid', 'gridcell', 'group', 'heading', 'img',
  'insertion', 'link', 'list', 'listbox', 'listitem', 'log', 'main', 'mark', 'marquee', 'math', 'meter', 'menu',
  'menubar', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'navigation', 'none', 'note', 'option', 'paragraph',
  'presentation', 'progressbar', 'radio', 'radiogroup', 'region', 'row', 'rowgroup', 'rowheader', 'scrollbar',
  'search', 'searchbox', 'separator', 'slider', 'spinbutton', 'status', 'strong', 'subscript', 'superscript',
  'switch', 'tab', 'table', 'tablist', 'tabpanel', 'term', 'textbox', 'time', 'timer', 'toolbar', 'tooltip', 'tree',
  'treegrid', 'treeitem',
] as const;

const known = new Set<string>(ARIA_ROLES);

/** Why a role name never matches (with the role likely meant), or undefined for a known role (any case, as Playwright reads it). */
export function unknownRoleMessage(role: string): string | undefined {
  // A {{variable}} is read when the test runs.
  if (known.has(role.trim().toLowerCase()) || role.includes('{{')) return undefined;
  // Common names that are not roles.
  const alias: Record<string, string> = { image: 'img', input: 'textbox', text: 'textbox', nav: 'navigation', anchor: 'link', a: 'link', select: 'combobox', dropdown: 'combobox', h1: 'heading', header: 'banner', footer: 'contentinfo', p: 'paragraph', li: 'listitem', ul: 'list', td: 'cell', th: 'columnheader', tr: 'row' };
  const near = alias[role.trim().toLowerCase()] ?? didYouMean(role, ARIA_ROLES);
  return `unknown ARIA role ${JSON.stringify(role)}${near ? `; did you mean ${JSON.stringify(near)}?` : ''} (a role locator names an ARIA role such as button, link, textbox, heading, checkbox)`;
}

/** The role names a selector string's role parts give (`role=button[name="Save"]`, also after `>>`, inside a nested selector's quotes, and as `internal:role=`). */
export function rolesInSelector(selector: string): string[] {
  const roles: string[] = [];
  for (const m of selector.matchAll(/(?:^|>>)\s*(?:internal:)?role\s*=\s*([A-Za-z][A-Za-z-]*)/g)) roles.push(m[1]!);
  return roles;
}
