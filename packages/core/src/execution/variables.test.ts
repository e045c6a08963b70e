import { describe, expect, it } from 'vitest';
import { interpolate, type VariableScope } from './variables.ts';
import { StepFailure } from './types.ts';

const scope: VariableScope = { saved: { id: 7 }, parameters: { user: 'ann' }, secrets: { TOKEN: 't0k' }, environment: { HOST: 'h' } };

const failureOf = (value: unknown): StepFailure => {
  try {
    interpolate(value, scope);
  } catch (err) {
    if (err instanceof StepFailure) return err;
    throw err;
  }
  throw new Error('no failure');
};

describe('interpolate', () => {
  it('fills saved values, parameters, secrets and environment variables', () => {
    expect(interpolate({ url: '/u/{{id}}?who={{user}}&t={{secrets.TOKEN}}&h={{env.HOST}}' }, scope)).toEqual({ url: '/u/7?who=ann&t=t0k&h=h' });
  });
  it('an unknown secret says where a secret is set, for svc run and for a server', () => {
    const f = failureOf('{{secrets.PW}}');
    expect(f.kind).toBe('configuration');
    expect(f.message).toBe("unknown secret {{secrets.PW}}: no secret PW is set (svc run: the environment variable SVC_SECRET_PW; a server: the project's secrets)");
  });
  it('an unknown variable lists what there is', () => {
    expect(failureOf('{{nope}}').message).toBe('unknown variable {{nope}}; saved: [id], parameters: [user]');
  });
  it('a whole variable keeps its type where the value is data, and is text where the test format wants text', () => {
    const typed: VariableScope = { saved: { price: 4, ok: true, item: { id: 9 } }, parameters: { n: 42, pw: '{{secrets.TOKEN}}' }, secrets: { TOKEN: 't0k' }, environment: {} };
    expect(interpolate({ type: 'fill', selector: '#q', value: '{{n}}' }, typed)).toEqual({ type: 'fill', selector: '#q', value: '42' });
    expect(interpolate({ type: 'assert', assertion: { type: 'text', selector: 'td', equals: '{{price}}' } }, typed)).toEqual({ type: 'assert', assertion: { type: 'text', selector: 'td', equals: '4' } });
    expect(interpolate({ type: 'count', selector: 'li', equals: '{{n}}' }, typed)).toEqual({ type: 'count', selector: 'li', equals: 42 });
    expect(interpolate({ type: 'json', path: '$.ok', equals: '{{ok}}' }, typed)).toEqual({ type: 'json', path: '$.ok', equals: true });
    expect(interpolate({ type: 'request', url: '/i/{{price}}', headers: { 'X-Count': '{{n}}' }, json: { a: { id: '{{n}}', item: '{{item}}' } } }, typed))
      .toEqual({ type: 'request', url: '/i/4', headers: { 'X-Count': '42' }, json: { a: { id: 42, item: { id: 9 } } } });
    expect(interpolate({ type: 'sql', statement: 'select $1', params: ['{{n}}'] }, typed)).toEqual({ type: 'sql', statement: 'select $1', params: [42] });
  });
  it('a null written into a longer text fails naming the variable and the text (a saved null became /users/null; found by QA); whole, it stays null', () => {
    const withNull: VariableScope = { saved: { id: null, user: { manager: null } }, parameters: {}, secrets: {}, environment: {} };
    expect(() => interpolate({ type: 'request', url: '/users/{{id}}' }, withNull)).toThrow('{{id}} is null, and a missing value cannot be written into the text "/users/{{id}}": the value it was saved from is null');
    expect(() => interpolate({ type: 'fill', selector: '#m', value: 'manager {{user.manager}}' }, withNull)).toThrow(/^\{\{user\.manager\}\} is null/);
    // A whole variable in data keeps its value: a JSON body may send null on purpose.
    expect(interpolate({ type: 'request', url: '/u', json: { manager: '{{id}}' } }, withNull)).toEqual({ type: 'request', url: '/u', json: { manager: null } });
  });
  it("a parameter's value may name a secret (a parameter set's password), resolved when used; not another parameter", () => {
    const withSecret: VariableScope = { saved: {}, parameters: { pw: '{{secrets.TOKEN}}', loop: '{{pw}}' }, secrets: { TOKEN: 't0k' }, environment: {} };
    expect(interpolate({ type: 'fill', selector: '#p', value: '{{pw}}' }, withSecret)).toEqual({ type: 'fill', selector: '#p', value: 't0k' });
    expect(interpolate({ url: '/x?p={{pw}}' }, withSecret)).toEqual({ url: '/x?p=t0k' });
    expect(() => interpolate({ value: '{{loop}}' }, withSecret)).toThrow(/unknown variable \{\{pw\}\}/);
  });
});
