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
});
