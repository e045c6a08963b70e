import type { Step } from '../../../contracts/steps.ts';
import { SLOT_RE } from './text.ts';
import type { MatchContext, Pattern } from './patterns.ts';

/**
 * Network mock sentences ("mock GET /api/items to return 503", "stub /api/items with
 * {"items": []}", "mock /api/items as a network error"). A mocking verb is required:
 * "GET /api/items returns 503" is a request the test sends, not an answer it fakes.
 */
const r = (src: string) => new RegExp(`^${src.replace(/Q/g, SLOT_RE)}$`);
const slot = (m: RegExpExecArray, ctx: MatchContext, i: number) => ctx.values[Number(m[i])];

/** "mock GET /x" or, passive, "the API GET /x is mocked": method in group 1, URL slot in group 2. */
const TARGET = `(?:the )?(?:(get|post|put|patch|delete) )?(?:requests? to |calls? to |api |endpoint )?Q(?: endpoint| api| route| requests?| calls?)?`;
const HEAD = `(?:(?:mock|stub|fake)(?:s|ed)? ${TARGET}|${TARGET.replace('(get|post|put|patch|delete)', '(?:get|post|put|patch|delete)')} (?:is|are) (?:mocked|stubbed|faked))`;
const METHOD = (m: RegExpExecArray) => {
  const method = m[1] ?? /^(?:the )?(?:api |endpoint )?(get|post|put|patch|delete) /.exec(m[0])?.[1];
  return method ? { method: method.toUpperCase() as 'GET' } : {};
};
/** The URL slot: group 2 in the active form, group 3 in the passive one. */
const url = (m: RegExpExecArray, ctx: MatchContext) => slot(m, ctx, m[2] !== undefined ? 2 : 3);
/** The group after the head (status, body slot). */
const after = (m: RegExpExecArray) => m[4];

export const mockPatterns: Pattern[] = [
  {
    id: 'mock-status',
    example: 'mock GET "/api/items" to return 503',
    certainty: 1,
    re: r(`${HEAD} (?:to )?(?:return|answer|respond with|reply with|with)(?: status| http| code| a| an)* (\\d{3})`),
    build: (m, ctx): Step[] => [{ type: 'mock', url: url(m, ctx), ...METHOD(m), status: Number(after(m)) }],
  },
  {
    id: 'mock-json',
    example: 'stub "/api/items" with {"items": []}',
    certainty: 1,
    re: r(`${HEAD} (?:to )?(?:return|answer|respond with|reply with|with)(?: the| a| json| body)* Q`),
    build: (m, ctx) => {
      const body = ctx.values[Number(after(m))].trim();
      if (!/^[{[]/.test(body)) return { error: 'give the answer as JSON ({…} or […]) or as a status code' };
      try {
        return [{ type: 'mock', url: url(m, ctx), ...METHOD(m), json: JSON.parse(body) }];
      } catch (err) {
        return { error: `the mocked answer is not valid JSON: ${(err as Error).message}` };
      }
    },
  },
  {
    id: 'mock-offline',
    example: 'mock "/api/items" as a network error',
    certainty: 1,
    re: r(`${HEAD} (?:as a network error|as offline|to fail(?: with a network error)?|to time ?out)`),
    build: (m, ctx): Step[] => [{ type: 'mock', url: url(m, ctx), ...METHOD(m), abort: /time ?out$/.test(m[0]) ? 'timedout' : 'failed' }],
  },
];
