import type { Step, Locator } from '../../../contracts/steps.ts';
import { SLOT_RE } from './text.ts';
import { anyOf, checkTarget, clickTarget, fieldTarget, itemsOf, partOf, roleOfWord } from './locators.ts';

/**
 * The plain-language grammar: each pattern matches one simplified sentence (lower case,
 * quoted values as slots, subject and modal verbs removed — see text.ts) and builds
 * product steps. `certainty` says how sure the reading is: 1 for an explicit sentence
 * (`click "Sign in" button`), less where we had to guess (an unquoted page name).
 */
export interface MatchContext {
  values: string[];
  /** The Gherkin section the sentence is in: a "then" reads "on the X page" as a URL check. */
  section?: 'given' | 'when' | 'then';
}

export interface Pattern {
  id: string;
  /** The canonical sentence, shown as the closest supported pattern when a line is not understood. */
  example: string;
  re: RegExp;
  certainty: number;
  /** Steps for the match, or a reason it cannot be used (e.g. a JSON body that does not parse). */
  build(m: RegExpExecArray, ctx: MatchContext): Step[] | { error: string };
  sections?: Array<'given' | 'when' | 'then'>;
}

/** `Q` in a pattern stands for a quoted value (its slot number is captured). */
const r = (src: string) => new RegExp(`^${src.replace(/Q/g, SLOT_RE)}$`);
const slot = (m: RegExpExecArray, ctx: MatchContext, i: number) => ctx.values[Number(m[i])];
const assert = (assertion: Record<string, unknown>): Step => ({ type: 'assert', assertion } as Step);

const NUMBERS: Record<string, number> = { no: 0, zero: 0, one: 1, a: 1, an: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, twenty: 20 };
const num = (s: string) => (/^\d+$/.test(s) ? Number(s) : NUMBERS[s]);
const NUM = '(\\d+|no|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty)';

/** A page the sentence names: a URL or path as is, "home"/"the app" as the base URL, else /<slug>. */
export function pageUrl(name: string): string {
  const n = name.trim();
  if (/^(https?:\/\/|\/|\.\/|\?|#)/i.test(n)) return n;
  if (/^(home|homepage|home page|index|main|main page|start|start page|landing|landing page|app|application|site|website|web site|[a-z]+ app)$/i.test(n)) return './';
  return `/${n.toLowerCase().replace(/\s+page$/, '').replace(/[^a-z0-9/_.-]+/g, '-').replace(/^-|-$/g, '')}`;
}

const KEYS: Record<string, string> = {
  enter: 'Enter', return: 'Enter', tab: 'Tab', escape: 'Escape', esc: 'Escape', space: 'Space', spacebar: 'Space', backspace: 'Backspace', delete: 'Delete', del: 'Delete', home: 'Home', end: 'End',
  'arrow up': 'ArrowUp', 'arrow down': 'ArrowDown', 'arrow left': 'ArrowLeft', 'arrow right': 'ArrowRight', arrowup: 'ArrowUp', arrowdown: 'ArrowDown', arrowleft: 'ArrowLeft', arrowright: 'ArrowRight',
  up: 'ArrowUp', down: 'ArrowDown', left: 'ArrowLeft', right: 'ArrowRight', 'page up': 'PageUp', 'page down': 'PageDown', pageup: 'PageUp', pagedown: 'PageDown',
};
const MODS: Record<string, string> = { ctrl: 'Control', control: 'Control', cmd: 'Meta', command: 'Meta', meta: 'Meta', alt: 'Alt', option: 'Alt', shift: 'Shift' };

/** "enter", "Ctrl+A", "control a", "F5" → a Playwright key, or undefined when it is no key. */
export function keyName(raw: string): string | undefined {
  const s = raw.trim().toLowerCase().replace(/\s+key$/, '');
  if (KEYS[s]) return KEYS[s];
  if (/^f([1-9]|1[0-2])$/.test(s)) return s.toUpperCase();
  const parts = s.split(/\s*\+\s*|\s+/);
  if (parts.length >= 2 && parts.slice(0, -1).every((p) => MODS[p])) {
    const last = parts[parts.length - 1];
    const key = KEYS[last] ?? (/^[a-z0-9]$/.test(last) ? last.toUpperCase() : undefined);
    return key ? [...parts.slice(0, -1).map((p) => MODS[p]), key].join('+') : undefined;
  }
  return undefined;
}
const KEY_WORDS = '(enter|return|tab|escape|esc|space|spacebar|backspace|delete|arrow ?(?:up|down|left|right)|page ?(?:up|down)|home|end|f\\d{1,2}|(?:ctrl|control|cmd|command|meta|alt|option|shift)(?: ?\\+ ?| )[a-z0-9]+)';

/** "id", "items[0].name", "$.id" → JSONPath into the response body. */
export function bodyPath(field: string): string {
  const f = field.trim();
  if (f.startsWith('$')) return f;
  return `$${f.startsWith('[') ? '' : '.'}${f}`;
}

/** An unquoted literal as written ("5", "true", "null") or a quoted string. */
function literal(raw: string | undefined, quoted: string | undefined): unknown {
  if (quoted !== undefined) return quoted;
  const s = (raw ?? '').trim();
  if (/^-?\d+(\.\d+)?$/.test(s)) return Number(s);
  if (s === 'true' || s === 'false') return s === 'true';
  if (s === 'null') return null;
  return s;
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The page's visible text contains / does not contain a string (never ambiguous, unlike a text locator). */
const pageShows = (text: string) => assert({ type: 'text', selector: 'body', contains: text });
const pageLacks = (text: string) => assert({ type: 'text', selector: 'body', matches: `^(?![\\s\\S]*${escapeRegex(text)})` });

/** "Answers at all": any status but a server error. */
const ANSWERS = [200, 201, 204, 301, 302, 303, 304, 307, 308, 400, 401, 403, 404, 405];

/** The form holding a password field: where "log in as" types. */
const LOGIN_FORM = 'form:has(input[type=password])';

const FIELD_WORDS = '(?: field| input| box| textbox| text box| textarea| text area| input field| area)?';
const CLICK_ROLE = '(?: (button|btn|link|tab|menu item|option|checkbox|icon|image))?';
const PAGE = '(?: page| url| screen| view)?';
const THE = '(?:the |a |an |my |our )?';
/** Page parts an accessibility sentence may name (locators.ts partOf). */
const PART_KINDS = 'form|dialog|modal|navigation|nav|menu|section|region|header|footer|sidebar|table|list';
const VISIBLE = '(?:is |are |to be |be |gets |get |becomes )?(?:visible|shown|displayed|present|appears?|rendered|on the page|on screen)';

export const patterns: Pattern[] = [
  // ------------------------------------------------------------ navigation
  { id: 'on-page-then', example: 'I am on the dashboard page', certainty: 0.7, sections: ['then'], re: r(`(?:am |are |is |be |see )?(?:on|at) ${THE}(?:([a-z][a-z0-9 -]*?)|Q) (?:page|screen|view)`), build: (m, c) => [assert({ type: 'url', contains: urlPart(m[1] ?? slot(m, c, 2)) })] },
  { id: 'goto', example: 'go to "/login"', certainty: 1, re: r(`(?:go|navigate|browse|head|get|come|return|move)(?: back| over)? to ${THE}Q${PAGE}`), build: (m, c) => [{ type: 'goto', url: pageUrl(slot(m, c, 1)) }] },
  { id: 'open', example: 'open "/login"', certainty: 1, re: r(`(?:open|visit|load|launch|start at|start on|start from)(?: up)? ${THE}Q${PAGE}`), build: (m, c) => [{ type: 'goto', url: pageUrl(slot(m, c, 1)) }] },
  { id: 'on-page', example: 'I am on "/login"', certainty: 0.9, sections: ['given', 'when'], re: r(`(?:am |are |is |be |start |begin |have )?(?:on|at|opened|visited) ${THE}Q${PAGE}`), build: (m, c) => [{ type: 'goto', url: pageUrl(slot(m, c, 1)) }] },
  { id: 'open-home', example: 'open the home page', certainty: 0.9, re: r(`(?:(?:go|navigate|browse|head|get|come|return) (?:back )?to|open|visit|load|launch|am on|are on|is on|be on|on|am at|at|start (?:at|on|from|with)|have opened|have visited) ${THE}(home ?page|home|index|main page|start page|landing page|app|application|site|website|web site|[a-z]+ (?:app|application|site))`), build: () => [{ type: 'goto', url: './' }] },
  { id: 'open-named', example: 'open the login page', certainty: 0.7, re: r(`(?:(?:go|navigate|browse|head|get|come|return) (?:back )?to|open|visit|load|am on|are on|is on|be on|on|am at|start (?:at|on|from)|have opened|have visited) ${THE}([a-z][a-z0-9 -]*?) (?:page|screen|view|form)`), build: (m) => [{ type: 'goto', url: pageUrl(m[1]) }] },

  { id: 'app-running', example: 'the app is running', certainty: 0.8, sections: ['given'], re: r(`${THE}(?:app|application|api|server|service|site|website|backend|store|pet store|[a-z]+ api)(?: is| are)? (?:running|up|available|reachable|online|up and running|started)`), build: () => [{ type: 'request', method: 'GET', url: './' }, assert({ type: 'status', in: ANSWERS })] },

  // ------------------------------------------------------------ keys (before click: "press Q" may be a key)
  { id: 'press', example: 'press Enter', certainty: 1, re: r(`(?:press|hit|push|type|strike)(?: the)? ${KEY_WORDS}(?: key| button)?(?: (?:in|on|into|inside) ${THE}Q${FIELD_WORDS})?`), build: (m, c) => {
    const key = keyName(m[1])!;
    return [{ type: 'press', key, ...(m[2] !== undefined && { selector: fieldTarget(slot(m, c, 2)) }) }];
  } },
  { id: 'press-quoted', example: 'press "Enter"', certainty: 1, re: r(`(?:press|hit|push)(?: the)? Q(?: key)?(?: (?:in|on|into) ${THE}Q${FIELD_WORDS})?`), build: (m, c) => {
    const key = keyName(slot(m, c, 1));
    if (!key) return { error: `"${slot(m, c, 1)}" is not a key name (Enter, Tab, Escape, Control+A …)` };
    return [{ type: 'press', key, ...(m[2] !== undefined && { selector: fieldTarget(slot(m, c, 2)) }) }];
  } },

  // ------------------------------------------------------------ forms
  { id: 'fill', example: 'fill "Email" with "a@b.c"', certainty: 1, re: r(`(?:fill|fill in|fill out|populate|complete|set)(?: in)? ${THE}Q${FIELD_WORDS} (?:with|to|as) Q`), build: (m, c) => [{ type: 'fill', selector: fieldTarget(slot(m, c, 1)), value: slot(m, c, 2) }] },
  { id: 'fill-unquoted', example: 'fill in the email field with "a@b.c"', certainty: 0.8, re: r(`(?:fill|fill in|fill out|populate|set)(?: in)? ${THE}([a-z][a-z0-9 ]*?)${FIELD_WORDS} (?:with|to|as) Q`), build: (m, c) => [{ type: 'fill', selector: fieldTarget(m[1]), value: slot(m, c, 2) }] },
  { id: 'type', example: 'type "hello" into "Search"', certainty: 1, re: r(`type(?: in)? Q (?:in|into|on|to|inside|in to)(?: the)? Q${FIELD_WORDS}`), build: (m, c) => [{ type: 'type', selector: fieldTarget(slot(m, c, 2)), text: slot(m, c, 1) }] },
  { id: 'enter', example: 'enter "a@b.c" in "Email"', certainty: 1, re: r(`(?:enter|input|put|write|key in|insert|provide|add|fill in|fill)(?: in)? Q (?:in|into|on|to|for|inside|in to|as)(?: the)? Q${FIELD_WORDS}`), build: (m, c) => [{ type: 'fill', selector: fieldTarget(slot(m, c, 2)), value: slot(m, c, 1) }] },
  { id: 'enter-unquoted-field', example: 'enter "a@b.c" in the email field', certainty: 0.8, re: r(`(?:enter|input|put|write|type|key in|insert|provide|fill in)(?: in)? Q (?:in|into|on|to|for|inside|as)(?: the)? ([a-z][a-z0-9 ?]*?)${FIELD_WORDS}`), build: (m, c) => [{ type: 'fill', selector: fieldTarget(m[2]), value: slot(m, c, 1) }] },
  { id: 'enter-as', example: 'enter "a@b.c" as the "Email"', certainty: 0.9, re: r(`(?:enter|use|input) Q as ${THE}Q${FIELD_WORDS}`), build: (m, c) => [{ type: 'fill', selector: fieldTarget(slot(m, c, 2)), value: slot(m, c, 1) }] },
  { id: 'type-focused', example: 'type "hello"', certainty: 0.8, re: r(`type Q`), build: (m, c) => [{ type: 'type', selector: ':focus', text: slot(m, c, 1) }] },
  { id: 'clear', example: 'clear "Search"', certainty: 0.9, re: r(`(?:clear|empty)(?: out)? ${THE}Q${FIELD_WORDS}`), build: (m, c) => [{ type: 'fill', selector: fieldTarget(slot(m, c, 1)), value: '' }] },
  { id: 'select', example: 'select "Red" from "Colour"', certainty: 1, re: r(`(?:select|choose|pick)(?: the)?(?: option)? Q (?:from|in|for|on|under|as)(?: the)? Q(?: dropdown| drop-down| select| list| menu| field| combobox| combo box| options)?`), build: (m, c) => [{ type: 'select', selector: fieldTarget(slot(m, c, 2)), label: slot(m, c, 1) }] },
  { id: 'set-select', example: 'set "Colour" to "Red"', certainty: 0.9, re: r(`(?:set|change) ${THE}Q (?:dropdown|drop-down|select|menu|combobox) to Q`), build: (m, c) => [{ type: 'select', selector: fieldTarget(slot(m, c, 1)), label: slot(m, c, 2) }] },
  { id: 'check', example: 'check "Remember me"', certainty: 1, re: r(`(?:check|tick|enable|select|turn on|switch on|opt in to|mark)(?: the)? Q(?: checkbox| check box| box| option| radio| radio button| toggle| switch)`), build: (m, c) => [{ type: 'check', selector: checkTarget(slot(m, c, 1)) }] },
  { id: 'check-plain', example: 'check "Remember me"', certainty: 0.95, re: r(`(?:check|tick)(?: the)? Q`), build: (m, c) => [{ type: 'check', selector: checkTarget(slot(m, c, 1)) }] },
  { id: 'complete-item', example: 'mark "Buy milk" as completed', certainty: 0.85, re: r(`(?:complete|mark|toggle|finish|tick off|check off|cross off)(?: the)? Q(?: todo| to-do| task| item| entry)?(?: as (?:done|complete|completed|finished))?`), build: (m, c) => [{ type: 'check', selector: checkTarget(slot(m, c, 1)) }] },
  { id: 'uncheck', example: 'uncheck "Remember me"', certainty: 1, re: r(`(?:uncheck|untick|deselect|disable|turn off|switch off|clear|unmark)(?: the)? Q(?: checkbox| check box| box| option| toggle| switch| todo| task| item)?(?: as (?:not done|incomplete|active))?`), build: (m, c) => [{ type: 'uncheck', selector: checkTarget(slot(m, c, 1)) }] },
  { id: 'submit', example: 'submit the form', certainty: 0.8, re: r(`submit ${THE}(?:form|login form|contact form|[a-z]+ form)`), build: () => [{ type: 'click', selector: 'button[type=submit], input[type=submit]' }] },

  { id: 'log-in-as', example: 'log in as "demo@example.com" with password "s3cret!"', certainty: 0.8, re: r(`(?:log ?in|sign ?in|login|signin)(?: as| with(?: the)?(?: email| username| user)?) Q(?:,)? (?:and|with)(?: the)?(?: password) Q`), build: (m, c) => [
    { type: 'fill', selector: `${LOGIN_FORM} :is(input[type=email], input[type=text], input:not([type])) >> nth=0`, value: slot(m, c, 1) },
    { type: 'fill', selector: `${LOGIN_FORM} input[type=password] >> nth=0`, value: slot(m, c, 2) },
    { type: 'click', selector: `${LOGIN_FORM} :is(button[type=submit], input[type=submit], button:not([type])) >> nth=0` },
  ] },
  { id: 'search', example: 'search for "lamp"', certainty: 0.8, re: r('search(?: for)? Q'), build: (m, c) => [
    { type: 'fill', selector: anyOf(['internal:role=searchbox', 'input[type=search]', fieldTarget('search') as string]), value: slot(m, c, 1) },
    { type: 'press', key: 'Enter' },
  ] },
  { id: 'choose-option', example: 'choose the "Pro" plan', certainty: 0.85, re: r(`(?:choose|pick|select|opt for)(?: the)? Q(?: plan| option| tier| radio| radio button| choice| size| colou?r| variant)`), build: (m, c) => [{ type: 'check', selector: checkTarget(slot(m, c, 1)) }] },
  { id: 'enter-my', example: 'enter my email "a@b.c"', certainty: 0.75, re: r(`(?:enter|type|input|provide|fill in|put in|give)(?: in)? (?:my|the|a|an|our) ([a-z][a-z0-9 ]*?) Q`), build: (m, c) => [{ type: 'fill', selector: fieldTarget(m[1]), value: slot(m, c, 2) }] },

  // ------------------------------------------------------------ clicks
  { id: 'click', example: 'click "Sign in"', certainty: 1, re: r(`(?:click|press|select|push|hit|choose|activate|follow|use)(?: on)? ${THE}Q${CLICK_ROLE}`), build: (m, c) => [{ type: 'click', selector: clickTarget(slot(m, c, 1), m[2]) }] },
  { id: 'click-role-first', example: 'click the button "Sign in"', certainty: 1, re: r(`(?:click|press|select|push|hit|choose|activate|follow)(?: on)? ${THE}(button|link|tab|menu item|option|checkbox) (?:named |labelled |labeled |called |saying |with text )?Q`), build: (m, c) => [{ type: 'click', selector: clickTarget(slot(m, c, 2), m[1]) }] },
  { id: 'click-unquoted', example: 'click the sign in button', certainty: 0.75, re: r(`(?:click|press|push|hit|tap)(?: on)? ${THE}([a-z][a-z0-9 '-]*?) (button|link|tab)`), build: (m) => [{ type: 'click', selector: clickTarget(m[1], m[2]) }] },
  { id: 'click-bare', example: 'click Save', certainty: 0.6, re: r(`(?:click|tap|press)(?: on)? (?:the )?([a-z0-9][a-z0-9 '&-]{0,40})`), build: (m) => [{ type: 'click', selector: clickTarget(m[1]) }] },
  { id: 'dblclick', example: 'double-click "Buy milk"', certainty: 0.9, re: r(`double[- ]?click(?: on)? ${THE}Q${CLICK_ROLE}`), build: (m, c) => [{ type: 'dblclick', selector: m[2] ? clickTarget(slot(m, c, 1), m[2]) : exactText(slot(m, c, 1)) }] },
  { id: 'hover', example: 'hover over "Info"', certainty: 0.9, re: r(`(?:hover|mouse over|mouseover|move the mouse over|point at)(?: over| on)? ${THE}Q${CLICK_ROLE}`), build: (m, c) => [{ type: 'hover', selector: m[2] ? clickTarget(slot(m, c, 1), m[2]) : anyOf([clickTarget(slot(m, c, 1)) as string, exactText(slot(m, c, 1))]) }] },

  // ------------------------------------------------------------ waits, scrolling, screenshots
  { id: 'wait-ms', example: 'wait 2 seconds', certainty: 1, re: r('wait(?: for)? (\\d+(?:\\.\\d+)?) ?(ms|milliseconds?|s|secs?|seconds?)'), build: (m) => [{ type: 'wait-for', ms: Math.round(Number(m[1]) * (m[2].startsWith('m') ? 1 : 1000)) }] },
  { id: 'wait-url', example: 'wait for the URL to contain "/dashboard"', certainty: 1, re: r('wait (?:for|until) (?:the )?(?:url|address|page url) (?:to )?(?:contains?|includes?|has|to have) Q'), build: (m, c) => [{ type: 'wait-for', url: `**${slot(m, c, 1)}**` }] },
  { id: 'wait-text', example: 'wait for "Saved"', certainty: 0.9, re: r(`wait (?:for|until) ${THE}(?:text |message )?Q(?: to (?:appear|be visible|show up|show|load)| appears?| is visible| shows up)?`), build: (m, c) => [pageShows(slot(m, c, 1))] },
  { id: 'scroll-edge', example: 'scroll to the bottom', certainty: 1, re: r('scroll (?:down |up )?(?:to )?(?:the )?(bottom|top|end|start)(?: of the page)?'), build: (m) => [{ type: 'scroll', to: m[1] === 'top' || m[1] === 'start' ? 'top' : 'bottom' }] },
  { id: 'scroll-to', example: 'scroll to "Footer"', certainty: 0.9, re: r(`scroll (?:down |up )?(?:to|until) ${THE}Q(?: is visible)?`), build: (m, c) => [{ type: 'scroll', selector: exactText(slot(m, c, 1)) }] },
  { id: 'screenshot', example: 'take a screenshot', certainty: 1, re: r('(?:take|capture|grab) (?:a )?screenshot(?: (?:named|called|as) Q)?'), build: (m, c) => [{ type: 'screenshot', ...(m[1] !== undefined && { label: slot(m, c, 1) }) }] },
  // Visual regression: the first run records the baseline, later runs compare with it.
  { id: 'looks-unchanged', example: 'the page looks as before', certainty: 0.9, re: r(`${THE}(?:Q )?(?:page|screen|view)(?: still)? (?:looks?|appears?|renders?)(?: exactly)? (?:the same(?: as before)?|as before|unchanged|as it did|like before|like (?:its|the) baseline)`), build: (m, c) => [assert({ type: 'visual', ...(m[1] !== undefined && { baseline: baselineName(slot(m, c, 1)) }) })] },
  { id: 'matches-baseline', example: 'the page matches the baseline "home"', certainty: 1, re: r(`(?:${THE}(?:page|screen|view) )?(?:matches|match|to match|compare (?:the )?(?:page |screen )?(?:with|to|against)) ${THE}(?:visual |screenshot )?(?:baseline|snapshot|reference screenshot)(?: (?:named |called )?Q)?`), build: (m, c) => [assert({ type: 'visual', ...(m[1] !== undefined && { baseline: baselineName(slot(m, c, 1)) }) })] },
  // Accessibility: axe-core on the page, or on one named part of it.
  { id: 'page-accessible', example: 'the page has no accessibility violations', certainty: 0.9, re: r(`${THE}(?:(?:Q |[a-z][a-z0-9 '-]*? )?(?:page|screen|app|site|view) (?:(?:has|have|should have|must have|to have|shows?) )?no (?:accessibility|a11y|wcag) (?:violations?|issues?|problems?|errors?)|(?:Q |[a-z][a-z0-9 '-]*? )?(?:page|screen|app|site|view) (?:is|are|be|should be|must be|to be|stays?|remains?) (?:fully )?accessible)`), build: () => [assert({ type: 'accessibility' })] },
  { id: 'part-accessible', example: 'the login form is accessible', certainty: 0.8, re: r(`${THE}(?:Q|([a-z][a-z0-9 '-]*?)) (${PART_KINDS}) (?:(?:is|are|be|should be|must be|to be|stays?|remains?) (?:fully )?accessible|(?:has|have|should have|must have|to have) no (?:accessibility|a11y|wcag) (?:violations?|issues?|problems?|errors?))`), build: (m, c) => [assert({ type: 'accessibility', selector: partOf(m[2] ?? slot(m, c, 1), m[3]) })] },
  // Console errors: no console.error and no uncaught exception so far (the page settles first).
  { id: 'no-console-errors', example: 'there should be no console errors', certainty: 0.9, re: r(`(?:there (?:be|are|is) no (?:(?:console|javascript|js|script) errors?(?: (?:in|on) ${THE}(?:browser )?console)?|errors? (?:in|on) ${THE}(?:browser )?console)|${THE}(?:browser )?console (?:(?:have|has|shows?|logs?) no errors?|(?:be|is|stays?) (?:free of|without) errors?)|${THE}(?:Q |[a-z][a-z0-9 '-]*? )?(?:page|app|site|screen|view) (?:have|has|throws?|logs?|shows?) no (?:console|javascript|js|script) errors?)`), build: () => [assert({ type: 'no_console_error' })] },

  // ------------------------------------------------------------ UI assertions
  { id: 'expect-heading', example: 'expect heading "Welcome"', certainty: 1, re: r(`(?:see |have |find )?${THE}(?:page )?(?:heading|header|headline|h1|title heading)(?: text)?(?: (?:saying|reading|that says|with text|of|with))? Q(?: ${VISIBLE})?`), build: (m, c) => [assert({ type: 'visible', selector: { role: 'heading', name: slot(m, c, 1) } })] },
  { id: 'heading-says', example: 'the heading says "Welcome"', certainty: 1, re: r(`${THE}(?:page )?(?:heading|header|headline|h1)(?: text)? (?:says?|reads?|is|be|shows?|displays?|contains?|includes?|to (?:say|read|be|show|contain|include)|equals?|to equal|to have text|has text) Q`), build: (m, c) => [assert({ type: 'visible', selector: { role: 'heading', name: slot(m, c, 1) } })] },
  { id: 'expect-url', example: 'expect the URL to contain "/dashboard"', certainty: 1, re: r(`${THE}(?:current )?(?:page )?(?:url|address|location|path)(?: bar)? (?:to |should |does |will )?(?:contain|contains|include|includes|have|has|show|shows|end with|ends with|be|is|equal|equals|match|matches|read|reads)(?: exactly)? Q`), build: (m, c) => [assert({ type: 'url', contains: slot(m, c, 1) })] },
  { id: 'redirected', example: 'I am redirected to "/dashboard"', certainty: 0.9, re: r(`(?:am |are |is |be |get |gets |got |been |was |were )?(?:redirected|taken|sent|navigated|brought|forwarded|moved|land|landed|end up|ends up)(?: back)? (?:to|on|at) ${THE}Q${PAGE}`), build: (m, c) => [assert({ type: 'url', contains: urlPart(slot(m, c, 1)) })] },
  { id: 'redirected-named', example: 'I am taken to the dashboard page', certainty: 0.7, re: r(`(?:am |are |is |be |get |gets |got |been )?(?:redirected|taken|sent|navigated|brought|forwarded|land|landed|end up)(?: back)? (?:to|on|at) ${THE}([a-z][a-z0-9 -]*?)(?: page| screen| view)?`), build: (m) => [assert({ type: 'url', contains: urlPart(m[1]) })] },
  { id: 'expect-title', example: 'expect title "Sign in"', certainty: 1, re: r(`${THE}(?:page |browser |window |tab )?title (?:to |should |will )?(?:be |is |equal |equals |contain |contains |include |includes |read |reads |say |says |show |shows |have |has )?(?:exactly )?Q`), build: (m, c) => [assert({ type: 'title', contains: slot(m, c, 1) })] },
  { id: 'expect-count', example: 'expect 3 items in "todo list"', certainty: 1, re: r(`(?:see |there (?:are|is|be) |have |has |find |count )?(?:exactly )?${NUM} (?:[a-z]+ )?(?:items?|entries|entry|rows?|todos?|to-dos?|results?|elements?|products?|tasks?|records?|cards?|lines?)(?: are| is)?(?: shown| listed| visible| displayed| left| remaining)? (?:in|on|under|within) ${THE}Q(?: list| table)?`), build: (m, c) => [assert({ type: 'count', selector: itemsOf(slot(m, c, 2)), equals: num(m[1]) })] },
  { id: 'expect-count-unquoted', example: 'expect 3 items in the todo list', certainty: 0.8, re: r(`(?:see |there (?:are|is|be) |have |has |find |count )?(?:exactly )?${NUM} (?:[a-z]+ )?(?:items?|entries|entry|rows?|todos?|to-dos?|results?|elements?|products?|tasks?|records?)(?: are| is)?(?: shown| listed| visible| displayed| left| remaining)? (?:in|on|under|within) ${THE}([a-z][a-z0-9 -]*? (?:list|table))`), build: (m) => [assert({ type: 'count', selector: itemsOf(m[2]), equals: num(m[1]) })] },
  { id: 'list-has', example: 'the "todo list" has 3 items', certainty: 0.9, re: r(`${THE}(?:Q|([a-z][a-z0-9 -]*? (?:list|table)))(?: list| table)? (?:has|have|contains|shows|lists|to have|to contain|to show|to list|displays) (?:exactly )?${NUM} (?:[a-z]+ )?(?:items?|entries|rows?|todos?|to-dos?|results?|elements?|tasks?|records?)`), build: (m, c) => [assert({ type: 'count', selector: itemsOf(m[1] !== undefined ? slot(m, c, 1) : m[2]), equals: num(m[3]) })] },
  { id: 'expect-value', example: 'expect "Email" to have value "a@b.c"', certainty: 1, re: r(`${THE}Q${FIELD_WORDS} (?:to |should |does )?(?:have|has|contain|contains|hold|holds|show|shows|be|is|equal|equals|keep|keeps)(?: the)?(?: value| text)?(?: of)? Q`), build: (m, c) => [assert({ type: 'value', selector: fieldTarget(slot(m, c, 1)), equals: slot(m, c, 2) })] },
  { id: 'expect-role-state', example: 'expect the "Archive" button to be disabled', certainty: 1, re: r(`${THE}Q(?: (button|link|checkbox|field|input))? (?:is |are |to be |be |stays? |remains? )?(enabled|disabled|visible|hidden|not visible|invisible|shown|displayed)`), build: (m, c) => {
    const name = slot(m, c, 1);
    const role = roleOfWord(m[2]);
    const state = m[3];
    const selector: Locator = role === 'textbox' ? fieldTarget(name) : role ? { role, name } : state === 'enabled' || state === 'disabled' ? clickTarget(name, 'button') : exactText(name);
    const type = state === 'enabled' ? 'enabled' : state === 'disabled' ? 'disabled' : /hidden|not visible|invisible/.test(state) ? 'hidden' : 'visible';
    if (!role && type === 'visible') return [pageShows(name)];
    if (!role && type === 'hidden') return [pageLacks(name)];
    if (type === 'hidden') return presentButHidden(role === 'textbox' ? fieldTarget(name) : `internal:role=${role}[include-hidden][name=${JSON.stringify(name)}i]`);
    return [assert({ type, selector })];
  } },
  { id: 'role-state-unquoted', example: 'the sign in button is visible', certainty: 0.75, re: r(`${THE}([a-z][a-z0-9 '-]*?) (button|link) (?:is |are |to be |be |stays? |remains? )?(enabled|disabled|visible|shown|displayed|hidden|not visible)`), build: (m) => {
    const selector = { role: roleOfWord(m[2])!, name: m[1] };
    const type = m[3] === 'enabled' || m[3] === 'disabled' ? m[3] : /hidden|not/.test(m[3]) ? 'hidden' : 'visible';
    if (type === 'hidden') return presentButHidden(`internal:role=${selector.role}[include-hidden][name=${JSON.stringify(m[1])}i]`);
    return [assert({ type, selector })];
  } },
  { id: 'checked', example: 'the "Remember me" checkbox should be checked', certainty: 0.9, re: r(`${THE}(?:checkbox |radio |option |box )?Q(?: checkbox| radio| radio button| option| box)? (?:is |to be |be |stays? |remains? )?(checked|ticked|selected|unchecked|unticked|not checked|not ticked|not selected)`), build: (m, c) => [checkedState(slot(m, c, 1), !/^(un|not)/.test(m[2]))] },
  { id: 'element-shows', example: 'the todo count shows "2 items left"', certainty: 0.7, re: r(`(?!(?:the |a |an |my |our )?(?:api |http |json )?(?:response|reply|result|body|status|header|url|address|title|page title|heading|header)\\b)${THE}([a-z][a-z0-9 '-]*?) (?:shows?|says?|reads?|displays?|contains?|includes?|to show|to say|to read|to display|to contain|to include)(?: the text| the message| the value)? Q`), build: (m, c) => [pageShows(slot(m, c, 2))] },
  { id: 'see-role', example: 'I see the "Sign in" button', certainty: 1, re: r(`(?:see |have |find )?${THE}(?:Q (button|link|checkbox|image|tab|dialog|alert)|(button|link|checkbox|image|tab) (?:named |labelled |labeled |called |saying )?Q)(?: ${VISIBLE})?`), build: (m, c) => {
    const name = m[1] !== undefined ? slot(m, c, 1) : slot(m, c, 4);
    return [assert({ type: 'visible', selector: { role: roleOfWord(m[2] ?? m[3])!, name } })];
  } },
  { id: 'not-see', example: 'I should not see "Error"', certainty: 1, re: r(`(?:not see|don't see|do not see|does not see|doesn't see|no longer see|not find|never see|see no|not be shown|not get)(?: any)?(?: the| a| an)?(?: text| message| error| error message| label| item| todo)?(?: saying| that says| reading)? Q(?: anymore| any more)?`), build: (m, c) => [pageLacks(slot(m, c, 1))] },
  { id: 'text-not-visible', example: '"Error" is not visible', certainty: 1, re: r(`${THE}(?:text |message |label )?Q (?:is not|isn't|not|to not be|not be|does not appear|doesn't appear|disappears|is gone|is no longer|no longer)(?: visible| shown| displayed| present| appear| on the page| there)?`), build: (m, c) => [pageLacks(slot(m, c, 1))] },
  { id: 'see-text', example: 'expect text "Saved"', certainty: 1, re: r(`(?:(?:see|find|read|notice|get|receive|be shown|am shown|shown|view) )?(?:the |a |an )?(?:(?:text|message|notification|confirmation|confirmation message|success message|error|error message|warning|label|alert|banner|greeting|toast|item|todo|entry|product|link|words?) )?(?:(?:saying|that says|reading|with|with text|with the text|containing|of) )?Q(?: ${VISIBLE})?(?: message| text)?`), build: (m, c) => [pageShows(slot(m, c, 1))] },
  { id: 'page-contains', example: 'the page contains "Saved"', certainty: 1, re: r(`${THE}(?:page|screen|body|view|dashboard|list|app)(?: should)? (?:to )?(?:contains?|shows?|displays?|includes?|has|have|lists?|reads?|says?)(?: the)?(?: text| message| item| an item| a message)?(?: saying| reading)? Q`), build: (m, c) => [pageShows(slot(m, c, 1))] },
];

/**
 * "the X checkbox is checked / unchecked": exactly one box named X in that state. Counting
 * the checked boxes and expecting 0 passed on a page without the box (found by QA); an
 * unchecked box has to be there to be unchecked.
 */
function checkedState(name: string, checked: boolean): Step {
  return assert({ type: 'count', selector: `${checkTarget(name)} >> internal:and=${JSON.stringify(checked ? ':checked' : ':not(:checked)')}`, equals: 1 });
}

/**
 * "the X button is hidden": the button is on the page but not shown. A `hidden` assertion
 * alone passes when nothing matches, so a misspelt or removed button passed on any page
 * (found by QA); the count (of a locator that includes hidden elements: a role locator
 * with `include-hidden`) says it exists. For "is gone" write `I should not see "X"`.
 */
function presentButHidden(selector: Locator): Step[] {
  return [assert({ type: 'count', selector, min: 1 }), assert({ type: 'hidden', selector })];
}

/** A visual baseline name from free text (the contract allows letters, digits, space, . - _). */
function baselineName(text: string): string {
  return text.replace(/[^A-Za-z0-9._ -]+/g, ' ').replace(/\s+/g, ' ').trim().replace(/^[^A-Za-z0-9]+/, '').slice(0, 100) || 'page';
}

function exactText(name: string): string {
  return `internal:text=/^\\s*${escapeRegex(name).replace(/\//g, '\\/')}\\s*$/i`;
}

/** What a URL check looks for: a path as written, else the page name ("the dashboard" → "dashboard"). */
function urlPart(name: string): string {
  const n = name.trim();
  if (/^(https?:\/\/|\/|\?|#)/i.test(n)) return n;
  return n.toLowerCase().replace(/\s+page$/, '').replace(/[^a-z0-9/_.-]+/g, '-').replace(/^-|-$/g, '');
}
