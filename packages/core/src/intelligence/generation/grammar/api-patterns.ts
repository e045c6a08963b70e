import type { Step } from '../../../contracts/steps.ts';
import { SLOT_RE } from './text.ts';
import { bodyPath, type MatchContext, type Pattern } from './patterns.ts';

/**
 * API sentences: a request ("GET /api/items returns 200", "POST /api/items with {…}
 * and bearer token "t" returns 201") and checks on the latest response (status,
 * fields, headers, list length, response time).
 */
const r = (src: string) => new RegExp(`^${src.replace(/Q/g, SLOT_RE)}$`);
const slot = (m: RegExpExecArray | RegExpMatchArray, ctx: MatchContext, i: number) => ctx.values[Number(m[i])];
const assert = (assertion: Record<string, unknown>): Step => ({ type: 'assert', assertion } as Step);

const REQUEST_HEAD = r(`(?:send |make |do |perform |call |issue |request |fire |submit )?(?:a |an |the )?(get|post|put|patch|delete|head|options)(?: request| call)?(?: to| on| for| at| against)? Q(.*)`);
const RETURNS = /^(?:,? ?and )?(?:it |that |which )?(?:should |must |will )?(?:returns?|responds?(?: with)?|gets?|answers?(?: with)?|expect(?:s|ing)?|gives?|yields?|results? in|to return|receives?|succeeds? with|fails? with)(?: back)?(?: with)?(?: a| an| the)?(?: http| status| code| response| status code)* (\d{3})(?: (?:status|response|code|[a-z]+))?/;

/** Parses a request sentence; undefined when the sentence is no request. */
export function parseRequest(template: string, ctx: MatchContext): Step[] | { error: string } | undefined {
  const m = REQUEST_HEAD.exec(template);
  if (!m) return undefined;
  const method = m[1].toUpperCase() as 'GET';
  const url = slot(m, ctx, 2);
  if (url.startsWith('{') || url.startsWith('[')) return undefined;
  // `GET ""` answered 500 (a request step needs a URL; found by QA).
  if (url.trim() === '') return { error: 'the request needs a URL or path between the quotes, e.g. GET "/api/items"' };
  const step: Record<string, unknown> = { type: 'request', method, url };
  const extra: Step[] = [];
  let rest = m[3].trim();
  let guard = 0;
  while (rest && guard++ < 10) {
    let c: RegExpExecArray | null;
    if ((c = new RegExp(`^(?:,? ?and |,? )?(?:with|using|sending|containing)(?: the| a| an)?(?: json| request)?(?: body| payload| data| json)?(?: of)? Q`.replace(/Q/g, SLOT_RE)).exec(rest)) && /^[{[]/.test(slot(c, ctx, 1).trim())) {
      try {
        step.json = JSON.parse(slot(c, ctx, 1));
      } catch (err) {
        return { error: `the request body is not valid JSON: ${(err as Error).message}` };
      }
    } else if ((c = new RegExp(`^(?:,? ?and |,? )?(?:(?:with|using|authenticated with|authorized with) )?(?:the |a |an )?(?:bearer )?(?:token|bearer token|api token|access token|authorization token) Q`.replace(/Q/g, SLOT_RE)).exec(rest))) {
      step.auth = { type: 'bearer', token: slot(c, ctx, 1) };
    } else if ((c = new RegExp(`^(?:,? ?and |,? )?(?:with|using)(?: the| a)? header Q(?: (?:=|:|set to|of|as)?\\s*Q)?`.replace(/Q/g, SLOT_RE)).exec(rest))) {
      const name = slot(c, ctx, 1);
      let value = c[2] !== undefined ? slot(c, ctx, 2) : undefined;
      let header = name;
      if (value === undefined) {
        const i = name.indexOf(':');
        if (i < 1) return { error: `give the header as "Name: value" or "Name" "value"` };
        header = name.slice(0, i).trim();
        value = name.slice(i + 1).trim();
      }
      step.headers = { ...(step.headers as Record<string, string> | undefined), [header]: value };
    } else if ((c = RETURNS.exec(rest))) {
      extra.push(assert({ type: 'status', equals: Number(c[1]) }));
    } else {
      return { error: `did not understand "${rest}" after the request` };
    }
    rest = rest.slice(c[0].length).trim();
  }
  return [step as Step, ...extra];
}

const RESP = '(?:the )?(?:api |http |json )?(?:response|reply|result|body|returned json|json)(?: body| json)?';
const FIELD = `(?:field|property|key|attribute|value|member)`;

export const apiPatterns: Pattern[] = [
  { id: 'status', example: 'the response status should be 200', certainty: 1, re: r(`(?:${RESP} |the )?(?:status|status code|http status|response code|code|http code)(?: code)? (?:to |should |must |will )?(?:be |is |equal |equals |of |was |= |== )?(\\d{3})`), build: (m) => [assert({ type: 'status', equals: Number(m[1]) })] },
  { id: 'returns-status', example: 'expect status 201', certainty: 1, re: r(`(?:get|receive|return|returns|returned|respond with|responds with|answer with|see)(?: back)?(?: a| an| the)?(?: http| status| code| response| status code)* (\\d{3})(?: [a-z]+)*`), build: (m) => [assert({ type: 'status', equals: Number(m[1]) })] },
  { id: 'field-exists', example: 'expect response field "id" to exist', certainty: 1, re: r(`(?:${RESP} )?${FIELD} Q (?:to |should |must )?(?:exists?|is present|be present|is set|be set|is defined|be defined|is returned|be returned)`), build: (m, c) => [assert({ type: 'json', path: bodyPath(slot(m, c, 1)), exists: true })] },
  { id: 'response-has-field', example: 'the response has a field "id"', certainty: 1, re: r(`${RESP} (?:has|have|contains?|includes?|to have|to contain|to include|returns?)(?: a| an| the)? (?:${FIELD} Q|Q ${FIELD})`), build: (m, c) => [assert({ type: 'json', path: bodyPath(slot(m, c, 1) ?? slot(m, c, 2)), exists: true })] },
  { id: 'response-text', example: 'the response contains "lamp"', certainty: 0.9, re: r(`${RESP} (?:has|have|contains?|includes?|mentions?|to have|to contain|to include|to mention|shows?)(?: the)?(?: text| value| word| string)? Q`), build: (m, c) => [assert({ type: 'json_schema', schema: containsText(slot(m, c, 1)) })] },
  { id: 'field-equals', example: 'expect response field "name" to be "lamp"', certainty: 1, re: r(`(?:${RESP} )?${FIELD} Q (?:to |should |must )?(?:be|equal|equals|is|==|=|to equal|has value|have value)(?: to)? (?:Q|(-?\\d+(?:\\.\\d+)?|true|false|null))`), build: (m, c) => [assert({ type: 'json', path: bodyPath(slot(m, c, 1)), equals: m[2] !== undefined ? slot(m, c, 2) : literal(m[3]) })] },
  { id: 'field-contains', example: 'expect response field "name" to contain "lam"', certainty: 1, re: r(`(?:${RESP} )?${FIELD} Q (?:to |should |must )?(?:contains?|includes?|to contain|to include) Q`), build: (m, c) => [assert({ type: 'json', path: bodyPath(slot(m, c, 1)), contains: slot(m, c, 2) })] },
  { id: 'list-length', example: 'the response contains 3 items', certainty: 0.9, re: r(`${RESP} (?:has|have|contains?|includes?|to have|to contain|is a list of|is an array of|lists?|returns?|with) (at least |at most |exactly )?(\\d+) (?:[a-z]+ )?(?:items?|elements?|entries|entry|results?|records?|objects?|rows?|[a-z]+)`), build: (m) => [assert({ type: 'json_schema', schema: arrayOf(m[1], Number(m[2])) })] },
  { id: 'field-length', example: 'response field "items" has 5 items', certainty: 0.9, re: r(`(?:${RESP} )?${FIELD} Q (?:has|have|contains?|to have|to contain|lists?|with|is a list of) (at least |at most |exactly )?(\\d+) (?:[a-z]+ )?(?:items?|elements?|entries|results?|records?|[a-z]+s)`), build: (m, c) => {
    const field = slot(m, c, 1);
    if (!/^[A-Za-z_][\w-]*$/.test(field)) return { error: `count the items of a top-level field (e.g. "items"), not "${field}"` };
    return [assert({ type: 'json_schema', schema: { type: 'object', required: [field], properties: { [field]: arrayOf(m[2], Number(m[3])) } } })];
  } },
  { id: 'header', example: 'expect response header "content-type" to contain "json"', certainty: 1, re: r(`(?:${RESP} )?header Q (?:to |should |must )?(contains?|includes?|to contain|to include|be|is|equals?|to equal|exists?|is present|be present)(?: Q)?`), build: (m, c) => {
    const header = slot(m, c, 1);
    if (/exist|present/.test(m[2])) return [assert({ type: 'header', header, exists: true })];
    if (m[3] === undefined) return { error: 'say what the header should contain or be' };
    return [assert({ type: 'header', header, ...(/contain|include/.test(m[2]) ? { contains: slot(m, c, 3) } : { equals: slot(m, c, 3) }) })];
  } },
  { id: 'response-time', example: 'the response arrives within 2000 ms', certainty: 1, re: r(`${RESP}(?: time)? (?:should )?(?:be |arrives? |come |comes |is received |returns? |takes? )?(?:within|under|below|less than|in less than|faster than|in under) (\\d+(?:\\.\\d+)?) ?(ms|milliseconds?|s|secs?|seconds?)`), build: (m) => [assert({ type: 'response_time', max_ms: Math.max(1, Math.round(Number(m[1]) * (m[2].startsWith('m') ? 1 : 1000))) })] },
  { id: 'response-not-empty', example: 'the response should not be empty', certainty: 0.9, re: r(`${RESP} (?:is not|isn't|should not be|to not be|not be|must not be|is never|not) empty`), build: () => [assert({ type: 'json_schema', schema: { minItems: 1, minProperties: 1, minLength: 1 } })] },
  { id: 'response-json', example: 'the response is JSON', certainty: 0.9, re: r(`${RESP} (?:is|should be|to be|be) (?:valid )?(?:json|a json object|an object|a list|an array|a json array)`), build: (_m) => [assert({ type: 'header', header: 'content-type', contains: 'json' })] },
];

function arrayOf(bound: string | undefined, n: number): Record<string, unknown> {
  const b = (bound ?? '').trim();
  if (b === 'at least') return { type: 'array', minItems: n };
  if (b === 'at most') return { type: 'array', maxItems: n };
  return { type: 'array', minItems: n, maxItems: n };
}

function literal(raw: string | undefined): unknown {
  const s = (raw ?? '').trim();
  if (/^-?\d+(\.\d+)?$/.test(s)) return Number(s);
  if (s === 'true' || s === 'false') return s === 'true';
  return s === 'null' ? null : s;
}

/**
 * "The response contains "lamp"": some string anywhere in the JSON body contains the
 * text. JSON Schema can say that recursively (a string matching, an array containing,
 * or an object with some property that does), and the runner already checks schemas.
 */
export function containsText(text: string): Record<string, unknown> {
  const pattern = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return {
    $defs: {
      has: {
        anyOf: [
          { type: 'string', pattern },
          { type: 'array', contains: { $ref: '#/$defs/has' } },
          { type: 'object', not: { additionalProperties: { not: { $ref: '#/$defs/has' } } } },
        ],
      },
    },
    $ref: '#/$defs/has',
  };
}
