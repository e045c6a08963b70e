import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestServer, client, signUp, type TestServer, type Client } from '../support/server.ts';

/**
 * A malformed selector is refused when a test is saved (400 VALIDATION_FAILED naming the
 * field and what is wrong), over real HTTP: on create, on update, and when a recording
 * whose selectors are malformed is converted (a 400, it was a 500).
 */

let server: TestServer;
let member: Client;
let projectId: string;

beforeAll(async () => {
  server = await startTestServer();
  const user = await signUp(server.url, 'selectors@example.com');
  member = client(server.url, { token: user.token, org: user.orgId });
  projectId = (await member.post('/api/v1/projects', { name: 'shop', app_url: 'http://127.0.0.1:3000' })).body.id;
});
afterAll(async () => server?.stop());

const issuesOf = (body: { error: { details: { issues: Array<{ path: string; message: string }> } } }) => body.error.details.issues;

describe('selectors in /api/tests', () => {
  it('create: a malformed CSS or XPath selector is a 400 naming the step field and the mistake', async () => {
    const res = await member.post('/api/tests', {
      project_id: projectId,
      name: 'broken selectors',
      type: 'ui',
      steps: [{ type: 'goto', url: '/' }, { type: 'click', selector: '#ok' }, { type: 'hover', selector: 'div[[' }, { type: 'fill', selector: { xpath: '//input[@name="q"' }, value: 'x' }],
      assertions: [{ type: 'visible', selector: 'text=Thanks >> ' }],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(issuesOf(res.body)).toEqual([
      { path: 'steps.2.selector', message: 'not a valid selector: "[" at character 5 inside the attribute selector opened at character 4 (a literal [ is written \\[)' },
      { path: 'steps.3.selector.xpath', message: 'not a valid selector: "[" at character 8 in the XPath is never closed (a missing "]")' },
      { path: 'assertions.0.selector', message: 'not a valid selector: the selector is empty (in part 2 of the >> chain, "")' },
    ]);
    const list = await member.get(`/api/tests?project_id=${projectId}`);
    expect(JSON.stringify(list.body)).not.toContain('broken selectors');
  });

  it('update: the same check; the stored test is unchanged; valid Playwright selectors are kept', async () => {
    const steps = [{ type: 'goto', url: '/' }, { type: 'click', selector: 'role=button[name="Buy"] >> nth=0' }, { type: 'click', selector: '#cart >> internal:has-text="Total"i' }];
    const created = await member.post('/api/tests', { project_id: projectId, name: 'buy', type: 'ui', steps });
    expect(created.status, created.text).toBe(201);
    const bad = await member.patch(`/api/tests/${created.body.id}`, { steps: [...steps, { type: 'click', selector: 'button:has-text("Pay"' }] });
    expect(bad.status).toBe(400);
    expect(issuesOf(bad.body)).toEqual([{ path: 'steps.3.selector', message: 'not a valid selector: "(" at character 16 is never closed (a missing ")")' }]);
    const stored = await member.get(`/api/tests/${created.body.id}`);
    expect(stored.body.steps).toEqual(steps);
  });
});

describe('POST /api/recording/convert', () => {
  it('a recorded step with a malformed selector is skipped with the reason, not a 500; the rest is converted', async () => {
    const recording = { title: 'recorded', steps: [{ type: 'navigate', url: 'http://127.0.0.1:3000/login' }, { type: 'click', selectors: [['#login-submit[']] }] };
    const r = await member.post('/api/recording/convert', { project_id: projectId, recording, execute: false });
    expect(r.status, r.text).toBe(201);
    expect(r.body.test.steps).toEqual([{ type: 'goto', url: '/login' }]);
    expect(r.body.skipped).toEqual([{ at: 1, what: 'click', reason: 'the recorded click step is not valid: selector: not a valid selector: "[" at character 14 is never closed (a missing "]")' }]);
  });
});
