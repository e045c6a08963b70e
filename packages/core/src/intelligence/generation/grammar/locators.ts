import type { Locator } from '../../../contracts/steps.ts';

/**
 * Locators the grammar emits for a name a person wrote ("Sign in", "Email"). When the
 * sentence says what the element is ("the Sign in button") we emit a structured role +
 * name locator. When it does not, the name could belong to a button or a link (or a
 * field could be named by its label or only by its placeholder), so we emit one
 * Playwright selector that is the union of those readings (Playwright's `locator.or`,
 * serialised as `internal:or`): the driver's one-match rule still applies to the union.
 */

const js = (s: string) => JSON.stringify(s);
/** Case-insensitive substring match, as getByRole/getByLabel do without exact. */
const role = (r: string, name: string) => `internal:role=${r}[name=${js(name)}i]`;
/**
 * The accessible name starts with the words written, ignoring case: "Completed" must not
 * match "Clear completed", but "Clear completed" should match "Clear completed (2)".
 */
// The name goes into an unquoted regex, where Playwright's selector parser still sees quotes
// (they open a quoted part) and `>>` (it splits the chain): those are written as \xNN
// escapes, which the regex matches as the characters themselves.
const roleExact = (r: string, name: string) => `internal:role=${r}[name=/^\\s*${regexBody(name.trim())}(?!\\w)/i]`;
const regexBody = (name: string) => escapeRegex(name).replace(/\//g, '\\/').replace(/['"`>]/g, (c) => `\\x${c.charCodeAt(0).toString(16)}`);
export const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const label = (name: string) => `internal:label=${js(name)}i`;
const placeholder = (name: string) => `internal:attr=[placeholder=${js(name)}i]`;

/** Union of Playwright selectors. */
export function anyOf(selectors: string[]): string {
  return selectors.slice(1).reduce((acc, s) => `${acc} >> internal:or=${js(s)}`, selectors[0]);
}

const ROLE_WORDS: Record<string, string> = {
  button: 'button', btn: 'button', link: 'link', tab: 'tab', 'menu item': 'menuitem', menuitem: 'menuitem', option: 'option', checkbox: 'checkbox', 'check box': 'checkbox',
  radio: 'radio', 'radio button': 'radio', heading: 'heading', header: 'heading', title: 'heading', switch: 'switch', toggle: 'switch', image: 'img', icon: 'img', row: 'row', cell: 'cell',
  textbox: 'textbox', field: 'textbox', input: 'textbox', 'text box': 'textbox', combobox: 'combobox', dropdown: 'combobox', 'drop-down': 'combobox', list: 'list', dialog: 'dialog', alert: 'alert',
};

export function roleOfWord(word: string | undefined): string | undefined {
  return word ? ROLE_WORDS[word.trim().toLowerCase()] : undefined;
}

/** Something to click: a button or link by accessible name (or the named role). */
export function clickTarget(name: string, roleWord?: string): Locator {
  const r = roleOfWord(roleWord);
  if (r && r !== 'textbox' && r !== 'heading' && r !== 'list') return { role: r, name };
  return anyOf([roleExact('button', name), roleExact('link', name), roleExact('tab', name), roleExact('menuitem', name), `input[type=submit][value=${js(name)} i], input[type=button][value=${js(name)} i]`]);
}

/**
 * A form field by its label, aria-label or placeholder — or, for people who name a field
 * by what the page calls it ("the edit field", "my todo"), a text control whose id,
 * class or name contains that word. The union still has to match exactly one element.
 */
export function fieldTarget(name: string): Locator {
  const slug = name.trim().toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  const control = ':is(input:not([type=checkbox], [type=radio], [type=hidden], [type=submit], [type=button], [type=image], [type=reset]), textarea, select)';
  const byName = /^[a-z][a-z0-9-]*$/.test(slug) ? [`${control}:is([id*=${js(slug)} i], [class*=${js(slug)} i], [name*=${js(slug)} i])`] : [];
  return anyOf([label(name), placeholder(name), ...byName]);
}

/** A checkbox or radio by its label, or the checkbox of a list row that shows the text (a to-do item). */
export function checkTarget(name: string): Locator {
  return anyOf([label(name), role('checkbox', name), role('radio', name), `:is(li, tr, [role=listitem], [role=row]):has-text(${js(name)}) >> input[type=checkbox]`]);
}

/** An element by its visible text. */
export function textTarget(text: string): Locator {
  return { text };
}

/**
 * The items of a list the sentence names ("todo list", "products table", "Product
 * catalogue"): the rows/items of a list or table with that accessible name (aria-label,
 * caption), or whose id, class or test id is the name with or without "list"/"table".
 */
export function itemsOf(name: string): Locator {
  const slugOf = (s: string) => s.trim().toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  const slugs = [...new Set([slugOf(name), slugOf(name.replace(/\s+(list|table|grid)$/i, ''))])].filter(Boolean);
  const ids = slugs.flatMap((x) => [`#${cssIdent(x)}`, `.${cssIdent(x)}`, `[data-testid=${js(x)}]`]);
  const container = `:is([aria-label=${js(name)} i], ${ids.join(', ')})`;
  return anyOf([
    `${container} > :is(li, [role=listitem], tr), ${container} > tbody > tr`,
    `internal:role=table[name=${js(name)}i] >> tbody tr`,
    `internal:role=list[name=${js(name)}i] >> internal:role=listitem`,
  ]);
}

/** The elements a page part of each kind is written as. */
const PART_TAGS: Record<string, string> = {
  form: 'form', dialog: 'dialog, [role=dialog]', modal: 'dialog, [role=dialog]', navigation: 'nav, [role=navigation]', nav: 'nav, [role=navigation]', menu: 'nav, menu, [role=menu]',
  section: 'section', region: 'section, [role=region]', header: 'header', footer: 'footer', sidebar: 'aside', table: 'table', list: 'ul, ol',
};

/**
 * A named part of the page ("the login form", the "Newsletter" form): an element of that
 * kind whose aria-label is the name, or whose id, class, test id or name attribute is the
 * name's slug, alone or with the kind after it (#login, #login-form, .login-form …).
 */
export function partOf(name: string, kind: string): Locator {
  const tags = PART_TAGS[kind] ?? kind;
  const slug = name.trim().toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  const slugs = [...new Set([slug, `${slug}-${kind}`])].filter(Boolean);
  const named = [`[aria-label=${js(name)} i]`, ...slugs.flatMap((x) => [`#${cssIdent(x)}`, `.${cssIdent(x)}`, `[data-testid=${js(x)}]`, `[name=${js(x)}]`])];
  return `:is(${tags}):is(${named.join(', ')})`;
}

function cssIdent(s: string): string {
  return /^[a-z_-][a-z0-9_-]*$/i.test(s) ? s : `x${s.replace(/[^a-z0-9_-]/gi, '')}`;
}

const NAMED_ROLES = ['button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox', 'listbox', 'option', 'tab', 'menuitem', 'switch', 'spinbutton', 'slider', 'heading', 'img'];

/**
 * An element by its exact accessible name, whatever its role — what a DevTools Recorder
 * `aria/Name` selector without a role means — or a field whose label is exactly that
 * (password inputs have no role).
 */
export function ariaNamed(name: string, roles: readonly string[] = NAMED_ROLES): string {
  return anyOf([...roles.map((r) => `internal:role=${r}[name=${js(name)}s]`), `internal:label=${js(name)}s`]);
}

/** The roles an element a recording clicked may have: anything named but a heading (a page's "Sign in" title beside its "Sign in" button). */
export const CLICKED_ROLES = NAMED_ROLES.filter((r) => r !== 'heading');
/** The roles of a field a recording typed into or changed. */
export const FIELD_ROLES = ['textbox', 'searchbox', 'combobox', 'listbox', 'spinbutton', 'slider', 'checkbox', 'radio', 'switch'];
