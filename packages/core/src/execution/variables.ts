import { StepFailure } from './types.ts';

/**
 * {{name}} variables in steps. Lookup order: values saved by earlier steps, then the
 * test's parameters; {{secrets.NAME}} reads a secret and {{env.NAME}} a project
 * environment variable. An unknown name fails the step with a configuration error
 * rather than sending "{{name}}" to the app.
 */
export interface VariableScope {
  saved: Record<string, unknown>;
  parameters: Record<string, unknown>;
  secrets: Record<string, string>;
  environment: Record<string, string>;
}

const PATTERN = /\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g;

function lookup(name: string, scope: VariableScope): unknown {
  if (name.startsWith('secrets.')) {
    const key = name.slice('secrets.'.length);
    if (key in scope.secrets) return scope.secrets[key];
    throw new StepFailure('configuration', `unknown secret {{${name}}}: no secret ${key} is set (svc run: the environment variable SVC_SECRET_${key}; a server: the project's secrets)`);
  }
  if (name.startsWith('env.')) {
    const key = name.slice('env.'.length);
    if (key in scope.environment) return scope.environment[key];
    if (key in scope.secrets) throw new StepFailure('configuration', `${key} is a secret: write {{secrets.${key}}} (secrets are masked in reports)`);
    throw new StepFailure('configuration', `unknown environment variable {{${name}}}`);
  }
  if (name in scope.saved) return scope.saved[name];
  if (name in scope.parameters) return parameterValue(scope.parameters[name], scope);
  const dot = name.indexOf('.');
  if (dot > 0 && name.slice(0, dot) in scope.saved) return member(name, dot, scope.saved[name.slice(0, dot)]);
  throw new StepFailure('configuration', `unknown variable {{${name}}}; saved: [${Object.keys(scope.saved).join(', ')}], parameters: [${Object.keys(scope.parameters).join(', ')}]`);
}

/**
 * A parameter's value may itself name a secret, an environment variable or a saved value
 * (`"password": "{{secrets.DEMO_PASSWORD}}"` in a parameter set), resolved when it is
 * used. Not another parameter: parameters naming each other could go round in circles.
 */
function parameterValue(value: unknown, scope: VariableScope): unknown {
  if (typeof value !== 'string' || !value.includes('{{')) return value;
  return interpolate(value, { ...scope, parameters: {} });
}

/**
 * {{name.field}} (or {{name.items.0}}): a field of an object an earlier step saved, e.g.
 * an extract step's result. A missing field fails the step naming it, as an unknown
 * variable does: the app must not receive "undefined".
 */
function member(name: string, dot: number, root: unknown): unknown {
  let value = root;
  for (const key of name.slice(dot + 1).split('.')) {
    const own = value !== null && typeof value === 'object' && Object.prototype.hasOwnProperty.call(value, key);
    if (!own) throw new StepFailure('configuration', `unknown variable {{${name}}}: ${JSON.stringify(key)} is not a field of the saved value${value !== null && typeof value === 'object' ? ` (fields: ${Object.keys(value).slice(0, 20).join(', ')})` : ''}`);
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * A variable written into a longer text must have a value: a saved null became the text
 * "null" in `/users/{{id}}` and the request went to /users/null (found by QA). The value
 * it was saved from is what to look at.
 */
function textPart(name: string, value: unknown, text: string): unknown {
  if (value === null || value === undefined) {
    throw new StepFailure('configuration', `{{${name}}} is ${value === null ? 'null' : 'undefined'}, and a missing value cannot be written into the text ${JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text)}: the value it was saved from is ${value === null ? 'null' : 'missing'}`);
  }
  return value;
}

function stringify(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Replaces variables in every string of a value. A string that is exactly one variable
 * keeps the variable's type where a value is data (so {"json": {"id": "{{id}}"}} sends a
 * number when id is one, and a count's `equals` gets a number), and becomes text where the
 * test format wants text: what a fill types, what a text assertion expects, a header.
 */
export function interpolate<T>(value: T, scope: VariableScope): T {
  return fill(value, scope, 'step') as T;
}

const WHOLE_VARIABLE = /^\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}$/;

/** Fields of a step or assertion whose value is text (the test format's string fields), wherever they are outside data. */
const TEXT_FIELDS = new Set(['value', 'text', 'contains', 'matches', 'url', 'key', 'label', 'name', 'selector', 'css', 'xpath', 'role', 'placeholder', 'test_id', 'alt', 'title', 'path', 'header', 'attribute', 'statement', 'body', 'username', 'password', 'token', 'option', 'description']);
/** Assertions whose `equals` is text (the others' is a number, or any JSON value). */
const TEXT_EQUALS = new Set(['text', 'value', 'url', 'title', 'attribute', 'header']);
/** Maps of text: every value is a string. */
const TEXT_MAPS = new Set(['headers', 'form']);
/** Where values are data of any JSON type, kept as they are all the way down. */
const DATA_FIELDS = new Set(['json', 'params', 'schema', 'query']);

/**
 * Where a value sits decides what a whole-variable string becomes: in a step's own fields
 * ('step') it keeps its type and an object's keys decide for their values; in a text field
 * ('text') it becomes text; in data ('data') it keeps its type at every depth.
 */
type Position = 'step' | 'text' | 'data';

function fill(value: unknown, scope: VariableScope, position: Position): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE_VARIABLE.exec(value);
    if (!whole) return value.replace(PATTERN, (_m, name: string) => stringify(textPart(name, lookup(name, scope), value)));
    const found = lookup(whole[1], scope);
    return position === 'text' && found !== null && found !== undefined ? stringify(found) : found;
  }
  if (Array.isArray(value)) return value.map((v) => fill(v, scope, position));
  if (!value || typeof value !== 'object') return value;
  if (position === 'data') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, scope, 'data')]));
  const type = (value as { type?: unknown }).type;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (DATA_FIELDS.has(k)) out[k] = fill(v, scope, 'data');
    else if (TEXT_MAPS.has(k) && v && typeof v === 'object' && !Array.isArray(v)) out[k] = Object.fromEntries(Object.entries(v).map(([name, x]) => [name, fill(x, scope, 'text')]));
    else out[k] = fill(v, scope, TEXT_MAPS.has(k) || TEXT_FIELDS.has(k) || (k === 'equals' && typeof type === 'string' && TEXT_EQUALS.has(type)) ? 'text' : 'step');
  }
  return out;
}

/** Names of the secrets a value refers to ({{secrets.NAME}} anywhere in its strings), each once. */
export function secretsReferenced(value: unknown): string[] {
  const names = [...JSON.stringify(value).matchAll(PATTERN)].map((m) => m[1]).filter((n) => n.startsWith('secrets.'));
  return [...new Set(names.map((n) => n.slice('secrets.'.length)))];
}

/**
 * The spellings of a secret a test's traffic can carry: the value, its percent-encodings
 * (a path, a query string or form body), and for a connection URL its password alone (a query can select
 * it back). Shorter than 4 characters, nothing is masked: "***" everywhere would say more.
 */
function secretSpellings(secret: string): string[] {
  // encodeURIComponent for paths and JSON-in-URL; URLSearchParams for query strings and forms (a space is +).
  // JSON-escaped too: messages quote what they received with JSON.stringify, so a secret with
  // a " or a backslash in it was left in plain text there (found by QA).
  const out = [secret, encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2), JSON.stringify(secret).slice(1, -1), ...htmlSpellings(secret)];
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(secret)) {
    try {
      const password = new URL(secret).password;
      if (password) out.push(password, decodeURIComponent(password));
    } catch {
      // not a URL after all
    }
  }
  return out.filter((s) => s.length >= 4);
}

/**
 * A secret as a page's serialised HTML spells it (a failed test's failure.html and its
 * dom_snapshot event; found by QA): in text (&, < and > escaped) and in attribute values
 * (& and ", and in Chromium's serialisation < and > too, escaped).
 */
function htmlSpellings(secret: string): string[] {
  const amp = secret.replace(/&/g, '&amp;').replace(/\u00a0/g, '&nbsp;');
  const lt = (v: string) => v.replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const quot = amp.replace(/"/g, '&quot;');
  return [lt(amp), quot, lt(quot)];
}

/**
 * Every string inside a value — an outcome a result keeps, such as an accessibility
 * check's (each violating element's HTML, the page's URL) — with redactSecrets applied;
 * the shape stays, and so does a value holding no secret.
 */
export function redactSecretsDeep<T>(value: T, secrets: Record<string, string>): T {
  if (Object.keys(secrets).length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redactSecrets(v, secrets);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/** A run of base64 (a Basic credential, an encoded token) long enough to hold a secret. */
const BASE64_RUN = /[A-Za-z0-9+/_-]{8,}={0,2}/g;

/**
 * Replaces every secret value in a text with ***, so reports and logs never carry them:
 * each of its spellings (secretSpellings), and a base64 run that decodes to text holding
 * one (`Basic Ym9iOnMzY3JldCE=` is bob's password).
 */
export function redactSecrets(text: string, secrets: Record<string, string>): string {
  const spellings = [...new Set(Object.values(secrets).flatMap(secretSpellings))].sort((a, b) => b.length - a.length);
  if (!spellings.length) return text;
  let out = text;
  for (const secret of spellings) out = out.split(secret).join('***');
  return out.replace(BASE64_RUN, (run) => {
    const decoded = Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
    return spellings.some((secret) => decoded.includes(secret)) ? '***' : run;
  });
}
