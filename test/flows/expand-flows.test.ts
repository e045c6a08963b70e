import { describe, expect, it } from 'vitest';
import { FlowDefinition } from '@svc/core/contracts/flow';
import { TestDefinition } from '@svc/core/contracts/steps';
import { expandFlows, expandSteps, flowIssues } from '@svc/core/flows/expand-flows';

/** `use` steps become their flows' steps: parameters bound, origins kept, bad uses named by field. */
const flow = (f: unknown) => FlowDefinition.parse(f);
const test = (steps: unknown[]) => TestDefinition.parse({ name: 't', type: 'ui', steps });

const signIn = flow({
  name: 'Sign in',
  parameters: [{ name: 'email', default: 'demo@example.com' }, { name: 'password' }, { name: 'attempts', default: 1 }],
  steps: [
    { type: 'goto', url: '/login' },
    { type: 'fill', selector: '#email', value: '{{email}}' },
    { type: 'fill', selector: '#password', value: '{{password}}' },
    { type: 'request', method: 'POST', url: '/api/attempts', json: { n: '{{attempts}}', who: 'user {{email}} ({{unbound}})' } },
  ],
});

describe('expandFlows', () => {
  it('binds parameters (defaults, typed whole values), leaves the test\'s variables for run time, and records origins', () => {
    const out = expandFlows(test([{ type: 'goto', url: '/' }, { type: 'use', flow: 'sign IN', with: { password: '{{secrets.PW}}', attempts: 3 } }]), [signIn]);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.definition.steps).toEqual([
      { type: 'goto', url: '/' },
      { type: 'goto', url: '/login' },
      { type: 'fill', selector: '#email', value: 'demo@example.com' },
      { type: 'fill', selector: '#password', value: '{{secrets.PW}}' },
      { type: 'request', method: 'POST', url: '/api/attempts', json: { n: 3, who: 'user demo@example.com ({{unbound}})' } },
    ]);
    expect(out.origins).toEqual([undefined, { flow: 'Sign in', step: 1 }, { flow: 'Sign in', step: 2 }, { flow: 'Sign in', step: 3 }, { flow: 'Sign in', step: 4 }]);
  });

  it('a value naming a variable is inserted as written, never bound again by an inner flow', () => {
    const outer = flow({ name: 'outer', parameters: [{ name: 'password' }], steps: [{ type: 'use', flow: 'sign in', with: { password: '{{password}}', email: '{{email}}' } }] });
    const out = expandSteps(TestDefinition.parse({ name: 't', type: 'ui', steps: [{ type: 'use', flow: 'outer', with: { password: 'pw' } }] }).steps, [outer, signIn]);
    expect(out.ok && out.steps[1]).toEqual({ type: 'fill', selector: '#email', value: '{{email}}' });
    expect(out.ok && out.steps[2]).toEqual({ type: 'fill', selector: '#password', value: 'pw' });
    expect(out.ok && out.origins[0]).toEqual({ flow: 'Sign in', step: 1, via: ['outer'] });
  });

  it('names the step of every bad use: unknown flow, unknown and missing parameters', () => {
    const out = expandFlows(test([{ type: 'goto', url: '/' }, { type: 'use', flow: 'nope' }, { type: 'use', flow: 'sign in', with: { pass: 'x' } }]), [signIn]);
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.issues).toEqual([
      { path: 'steps.1.flow', message: 'unknown flow "nope" (flows: Sign in)' },
      { path: 'steps.2.with.pass', message: 'flow "Sign in" has no parameter pass (parameters: email, password, attempts)' },
      { path: 'steps.2.with.password', message: 'required: flow "Sign in" needs password (it has no default)' },
    ]);
  });

  it('refuses cycles naming them, and nesting deeper than 5', () => {
    const a = flow({ name: 'sign-in', steps: [{ type: 'use', flow: 'open-admin' }] });
    const b = flow({ name: 'open-admin', steps: [{ type: 'use', flow: 'sign-in' }] });
    const out = expandSteps(test([{ type: 'use', flow: 'sign-in' }]).steps, [a, b]);
    expect(out).toEqual({ ok: false, issues: [{ path: 'steps.0.flow', message: 'flows use each other in a cycle: sign-in → open-admin → sign-in' }] });
    expect(flowIssues(a, [a, b])).toEqual([{ path: 'steps.0.flow', message: 'flows use each other in a cycle: sign-in → open-admin → sign-in' }]);
    const self = flow({ name: 'me', steps: [{ type: 'use', flow: 'ME' }] });
    expect(flowIssues(self, [])).toEqual([{ path: 'steps.0.flow', message: 'flows use each other in a cycle: me → me' }]);

    const chain = Array.from({ length: 6 }, (_, i) => flow({ name: `f${i}`, steps: [i < 5 ? { type: 'use', flow: `f${i + 1}` } : { type: 'goto', url: '/' }] }));
    expect(expandSteps(test([{ type: 'use', flow: 'f1' }]).steps, chain).ok).toBe(true);
    expect(expandSteps(test([{ type: 'use', flow: 'f0' }]).steps, chain)).toEqual({ ok: false, issues: [{ path: 'steps.0.flow', message: 'flows nest deeper than 5: f0 → f1 → f2 → f3 → f4 → f5' }] });
  });

  it('refuses a baseline name a flow brings twice (a flow used twice) or that the test already has, naming the use step', () => {
    const header = flow({ name: 'check header', steps: [{ type: 'assert', assertion: { type: 'visual', baseline: 'header' } }] });
    const twice = expandFlows(test([{ type: 'goto', url: '/' }, { type: 'use', flow: 'check header' }, { type: 'goto', url: '/about' }, { type: 'use', flow: 'check header' }]), [header]);
    expect(twice).toEqual({ ok: false, issues: [{ path: 'steps.3.flow', message: expect.stringMatching(/^check header › step 1 \(used by steps\.3\): baseline "header" is also used by check header › step 1 \(used by steps\.1\); two visual checks with one baseline would compare/) }] });

    const own = expandFlows(test([{ type: 'assert', assertion: { type: 'visual', baseline: 'Header' } }, { type: 'use', flow: 'check header' }]), [header]);
    expect(own.ok).toBe(true); // Header and header are two files
    const sameFile = expandFlows(test([{ type: 'assert', assertion: { type: 'visual', baseline: 'head er' } }, { type: 'use', flow: 'check header' }]), [flow({ name: 'check header', steps: [{ type: 'assert', assertion: { type: 'visual', baseline: 'head_er' } }] })]);
    expect(sameFile).toEqual({ ok: false, issues: [{ path: 'steps.1.flow', message: expect.stringContaining('is also used by steps.0 (as "head er": names differing only') }] });

    // Once per test, and unnamed checks (visual-<n>, by position), are fine.
    expect(expandFlows(test([{ type: 'use', flow: 'check header' }]), [header]).ok).toBe(true);
    const unnamed = flow({ name: 'snap', steps: [{ type: 'assert', assertion: { type: 'visual' } }] });
    expect(expandFlows(test([{ type: 'use', flow: 'snap' }, { type: 'use', flow: 'snap' }]), [unnamed]).ok).toBe(true);
  });

  it('a test without use steps is returned as it is', () => {
    const t = test([{ type: 'goto', url: '/' }]);
    const out = expandFlows(t, []);
    expect(out.ok && out.definition).toBe(t);
  });
});

describe('FlowDefinition', () => {
  it('names bad fields: the name\'s characters, a parameter declared twice, reserved names, trailing assertions', () => {
    const r = FlowDefinition.safeParse({ name: 'bad/name', parameters: [{ name: 'a' }, { name: 'a' }, { name: 'secrets' }], steps: [{ type: 'goto', url: '/' }], assertions: [] });
    expect(r.success).toBe(false);
    const paths = r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['name', 'parameters.2.name', '']));
    expect(FlowDefinition.safeParse({ name: 'ok', parameters: [{ name: 'a' }, { name: 'a' }], steps: [{ type: 'goto', url: '/' }] }).error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['parameters.1.name', 'parameter a is declared twice']]);
  });
});
