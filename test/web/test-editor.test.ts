// The test editor's assertions and parameter sets, over the real API in real Chromium: the
// editor shows a test's assertions and parameter sets as JSON beside its steps; JSON that
// does not parse (or an empty name) is said under its own field and nothing is sent; the
// API's 400 ("assertions.0.equals", "parameter_sets.1.name") is said under the text area it
// is about; a save replaces the lists whole (an emptied parameter-sets field makes the test
// an ordinary one); and a save against a revision someone changed since is still refused
// with who and when, the edited assertions kept until Reload. The timeout is edited in
// seconds and the shared parameters as a JSON object.
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAs, startPanelWorld } from './browser.ts';

type World = Awaited<ReturnType<typeof startPanelWorld>>;

describe('test editor: assertions and parameter sets', () => {
  let world: World;
  let server: World['server'];
  let tab: Page;
  let api: World['api'];
  let testId: string;
  let problems: string[];
  /** The PATCH requests the page sent for the test. */
  const patches: Request[] = [];

  const PROJECT = 'Assertion shop';
  const ASSERTIONS = [{ type: 'status', equals: 200 }];
  const SETS = [{ name: 'first page', values: { page: 1 } }, { name: 'second page', values: { page: 2 } }];
  const rowOf = (name: string) => tab.getByTestId('test-row').filter({ has: tab.getByTestId('test-row-name').getByText(name, { exact: true }) });
  const area = (id: string) => tab.getByTestId(`test-editor-${id}`);
  const errorOf = (id: string) => tab.getByTestId(`test-editor-${id}-error`);
  const stored = async () => (await api.get(`/api/tests/${testId}`)).body;

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    ({ server, api, page: tab, problems } = world);
    testId = await world.createTest({ name: 'items answer', type: 'api', steps: [{ type: 'request', url: '/api/items?page={{page}}' }], assertions: ASSERTIONS, parameter_sets: SETS });
    tab.on('request', (request) => {
      if (request.method() === 'PATCH' && new URL(request.url()).pathname === `/api/tests/${testId}`) patches.push(request);
    });
  }, 120_000);

  afterAll(async () => {
    await world?.close();
  });

  it("shows the test's assertions and parameter sets as JSON beside its steps", async () => {
    await signInAs(tab, server.url, server.admin.email, server.admin.password);
    await tab.getByTestId('project-row').filter({ hasText: PROJECT }).getByTestId('project-tests').click();
    await rowOf('items answer').getByTestId('test-row-edit').click();
    await expect.poll(() => tab.getByTestId('test-editor-heading').textContent()).toBe('Edit test · items answer (revision 1)');
    const test = await stored();
    expect(test.assertions).toEqual(ASSERTIONS);
    expect(JSON.parse(await area('assertions').inputValue())).toEqual(test.assertions);
    expect(JSON.parse(await area('parameter-sets').inputValue())).toEqual(test.parameter_sets);
    expect(JSON.parse(await area('steps').inputValue())).toEqual(test.steps);
    // Each is labelled as what it is.
    const editor = tab.getByTestId('test-editor');
    expect(await editor.getByLabel(/^Assertions/).getAttribute('data-testid')).toBe('test-editor-assertions');
    expect(await editor.getByLabel(/^Parameter sets/).getAttribute('data-testid')).toBe('test-editor-parameter-sets');
    expect(problems).toEqual([]);
  });

  it('says broken JSON and an empty name under their fields, and sends nothing', async () => {
    const steps = await area('steps').inputValue();
    await area('name').fill('  ');
    await area('steps').fill('[{ "type": ');
    await area('assertions').fill('[{ "type": "status", ');
    await area('parameter-sets').fill('[{ name: "x" }]');
    await tab.getByTestId('test-editor-save').click();
    await expect.poll(() => errorOf('assertions').textContent()).toMatch(/^Not valid JSON: a list of assertions/);
    expect(await errorOf('steps').textContent()).toMatch(/^Not valid JSON: a list of steps/);
    expect(await errorOf('parameter-sets').textContent()).toMatch(/^Not valid JSON: a list of sets/);
    expect(await errorOf('name').textContent()).toBe('This field is required.');
    for (const id of ['name', 'steps', 'assertions', 'parameter-sets']) expect(await area(id).getAttribute('aria-invalid'), id).toBe('true');
    // The first field named is focused; the form-wide alert is not used for these.
    expect(await area('name').evaluate((node) => node === document.activeElement)).toBe(true);
    expect(await tab.getByTestId('test-editor-error').isVisible()).toBe(false);
    expect(patches).toHaveLength(0);
    expect((await stored()).revision).toBe(1);

    await area('name').fill('items answer');
    await area('steps').fill(steps);
    await area('assertions').fill(JSON.stringify(ASSERTIONS));
    await area('parameter-sets').fill(JSON.stringify(SETS));
  });

  it("says the API's refusals under the text area each is about, with the place in the list", async () => {
    const body = { assertions: [{ type: 'status', equals: 'ok' }], parameter_sets: [{ name: 'same', values: { page: 1 } }, { name: 'same', values: { page: 2 } }] };
    const refused = await api.patch(`/api/tests/${testId}`, body);
    expect(refused.status).toBe(400);
    const issues = refused.body.error.details.issues.map((i: { path: string | (string | number)[]; message: string }) => ({ path: [i.path].flat().join('.'), message: i.message }));
    const messageAt = (path: string) => issues.find((i: { path: string }) => i.path === path)?.message;
    expect(messageAt('assertions.0.equals')).toBeTruthy();
    expect(messageAt('parameter_sets.1.name')).toBeTruthy();

    await area('assertions').fill(JSON.stringify(body.assertions, null, 2));
    await area('parameter-sets').fill(JSON.stringify(body.parameter_sets, null, 2));
    await tab.getByTestId('test-editor-save').click();
    await expect.poll(() => errorOf('assertions').textContent()).toBe(`assertions.0.equals: ${messageAt('assertions.0.equals')}`);
    expect(await errorOf('parameter-sets').textContent()).toBe(`parameter_sets.1.name: ${messageAt('parameter_sets.1.name')}`);
    expect(await area('assertions').getAttribute('aria-invalid')).toBe('true');
    expect(await area('parameter-sets').getAttribute('aria-invalid')).toBe('true');
    expect(await errorOf('steps').isVisible()).toBe(false);
    expect(await area('steps').getAttribute('aria-invalid')).toBeNull();
    expect(await tab.getByTestId('test-editor-error').isVisible()).toBe(false);
    // It was sent once, conditioned on the revision loaded, with the lists as typed; nothing changed.
    expect(patches).toHaveLength(1);
    expect(patches[0].headers()['if-match']).toBe('"1"');
    expect(patches[0].postDataJSON()).toMatchObject(body);
    expect(await stored()).toMatchObject({ revision: 1, assertions: ASSERTIONS, parameter_sets: SETS });
  });

  it('saves new assertions and an emptied parameter-sets field: the lists are replaced whole', async () => {
    const assertions = [{ type: 'status', equals: 200 }, { type: 'json', path: '$.items', exists: true }];
    await area('assertions').fill(JSON.stringify(assertions, null, 2));
    await area('parameter-sets').fill('');
    await tab.getByTestId('test-editor-save').click();
    await expect.poll(() => tab.getByTestId('test-editor-status').textContent()).toBe('Saved as revision 2.');
    // The refusals shown before are gone.
    expect(await errorOf('assertions').isVisible()).toBe(false);
    expect(await errorOf('parameter-sets').isVisible()).toBe(false);
    expect(await area('assertions').getAttribute('aria-invalid')).toBeNull();
    const test = await stored();
    expect(test).toMatchObject({ revision: 2, name: 'items answer', parameter_sets: [] });
    expect(test.assertions).toEqual(assertions);
    expect(patches.at(-1)!.headers()['if-match']).toBe('"1"');
    expect(patches.at(-1)!.postDataJSON()).toMatchObject({ assertions, parameter_sets: [] });
    // Opened again, the editor shows what is stored.
    await tab.getByTestId('test-editor-close').click();
    await rowOf('items answer').getByTestId('test-row-edit').click();
    await expect.poll(() => tab.getByTestId('test-editor-heading').textContent()).toBe('Edit test · items answer (revision 2)');
    expect(JSON.parse(await area('assertions').inputValue())).toEqual(assertions);
    expect(JSON.parse(await area('parameter-sets').inputValue())).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('a change someone made meanwhile is still refused with who and when; the edited assertions stay until Reload', async () => {
    const mine = [{ type: 'status', equals: 201 }];
    await area('assertions').fill(JSON.stringify(mine));
    const theirs = await api.patch(`/api/tests/${testId}`, { assertions: [{ type: 'status', in: [200, 204] }] });
    expect(theirs.status, theirs.text).toBe(200);

    await tab.getByTestId('test-editor-save').click();
    const error = tab.getByTestId('test-editor-error');
    await expect.poll(() => error.textContent()).toContain("changed by you (in another tab or window) at");
    expect(await error.textContent()).toContain('(now revision 3) since you opened it');
    expect(patches.at(-1)!.headers()['if-match']).toBe('"2"');
    expect(JSON.parse(await area('assertions').inputValue())).toEqual(mine);
    expect((await stored()).assertions).toEqual([{ type: 'status', in: [200, 204] }]);

    await tab.getByTestId('test-editor-reload').click();
    await expect.poll(async () => JSON.parse(await area('assertions').inputValue())).toEqual([{ type: 'status', in: [200, 204] }]);
    expect(await tab.getByTestId('test-editor-heading').textContent()).toBe('Edit test · items answer (revision 3)');
    expect(await error.isVisible()).toBe(false);
    expect(problems).toEqual([]);
  });

  it('edits the timeout in seconds and the shared parameters as a JSON object, each refusal under its field', async () => {
    // Shown as stored: the default 10 minutes, and no shared parameters (an empty field).
    expect(await area('timeout').inputValue()).toBe('600');
    expect(await area('parameters').inputValue()).toBe('');
    const editor = tab.getByTestId('test-editor');
    expect(await editor.getByLabel(/^Timeout/).getAttribute('data-testid')).toBe('test-editor-timeout');
    expect(await editor.getByLabel(/^Shared parameters/).getAttribute('data-testid')).toBe('test-editor-parameters');

    const sent = patches.length;
    await area('timeout').fill('0.5');
    await area('parameters').fill('["page"]');
    await tab.getByTestId('test-editor-save').click();
    await expect.poll(() => errorOf('timeout').textContent()).toBe('A number of seconds from 1 to 600 (empty: 600).');
    expect(await errorOf('parameters').textContent()).toMatch(/^Not a JSON object/);
    expect(patches).toHaveLength(sent);

    // A name the API refuses is said under the field, with the place.
    await area('timeout').fill('45');
    await area('parameters').fill('{ "secrets": "x" }');
    await tab.getByTestId('test-editor-save').click();
    await expect.poll(() => errorOf('parameters').textContent()).toMatch(/^parameters\.secrets: not a valid name: secrets and env are reserved/);
    expect(await errorOf('timeout').isVisible()).toBe(false);
    expect((await stored()).revision).toBe(3);

    await area('parameters').fill('{ "page": 3 }');
    await tab.getByTestId('test-editor-save').click();
    await expect.poll(() => tab.getByTestId('test-editor-status').textContent()).toBe('Saved as revision 4.');
    expect(patches.at(-1)!.postDataJSON()).toMatchObject({ timeout_ms: 45_000, parameters: { page: 3 } });
    expect(await stored()).toMatchObject({ revision: 4, timeout_ms: 45_000, parameters: { page: 3 } });
    const history = await api.get(`/api/tests/${testId}/revisions`);
    expect(history.body.items[0].changed_fields.sort()).toEqual(['parameters', 'timeout_ms']);

    // Emptied, the fields mean the defaults again.
    await area('timeout').fill('');
    await area('parameters').fill('');
    await tab.getByTestId('test-editor-save').click();
    await expect.poll(() => tab.getByTestId('test-editor-status').textContent()).toBe('Saved as revision 5.');
    expect(await stored()).toMatchObject({ timeout_ms: 600_000, parameters: {} });
    expect(problems).toEqual([]);
  });

  it('writes a new test: a starter of the kind chosen, a refusal under its field, created once on Save, then edited like any other', async () => {
    const listed = async () => (await api.get(`/api/tests?project_id=${world.projectId}`)).body.items as { id: string; name: string }[];
    const posts: Request[] = [];
    tab.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/tests') posts.push(request);
    });
    await tab.getByTestId('test-editor-close').click();
    await tab.getByTestId('tests-new').click();
    await expect.poll(() => tab.getByTestId('test-editor-heading').textContent()).toBe(`New test · ${PROJECT}`);
    // Focus is where typing starts; the form starts from one step of a UI test.
    expect(await area('name').evaluate((node) => node === document.activeElement)).toBe(true);
    expect(await area('name').inputValue()).toBe('');
    expect(JSON.parse(await area('steps').inputValue())).toEqual([{ type: 'goto', url: '/' }]);
    expect(await tab.getByTestId('test-editor').getByLabel(/^Kind/).getAttribute('data-testid')).toBe('test-editor-type');
    // Another kind, with the starter untouched: that kind's starter.
    await area('type').selectOption('api');
    expect(JSON.parse(await area('steps').inputValue())).toEqual([{ type: 'request', method: 'GET', url: '/health' }]);
    expect(JSON.parse(await area('assertions').inputValue())).toEqual([{ type: 'status', equals: 200 }]);

    // A step the API refuses is said under Steps, with its place; nothing is created.
    await area('name').fill('items list answers');
    await area('steps').fill('[{ "type": "request", "method": "FETCH", "url": "/api/items" }]');
    await tab.getByTestId('test-editor-save').click();
    await expect.poll(() => errorOf('steps').textContent()).toMatch(/^steps\.0\.method: /);
    expect(await area('name').inputValue()).toBe('items list answers');
    expect((await listed()).map((t) => t.name)).toEqual(['items answer']);

    await area('steps').fill(JSON.stringify([{ type: 'request', url: '/api/items' }]));
    await tab.getByTestId('test-editor-save').click();
    await expect.poll(() => tab.getByTestId('test-editor-status').textContent()).toBe('Created: the test is in the list (revision 1).');
    expect(await tab.getByTestId('test-editor-heading').textContent()).toBe('Edit test · items list answers (revision 1)');
    await rowOf('items list answers').waitFor();
    const created = (await listed()).find((t) => t.name === 'items list answers')!;
    expect((await api.get(`/api/tests/${created.id}`)).body).toMatchObject({ type: 'api', steps: [{ type: 'request', url: '/api/items' }], assertions: [{ type: 'status', equals: 200 }], revision: 1 });

    // The next save is an edit of that test, not a second one.
    await area('description').fill('the list answers 200');
    await tab.getByTestId('test-editor-save').click();
    await expect.poll(() => tab.getByTestId('test-editor-status').textContent()).toBe('Saved as revision 2.');
    expect(posts.filter((r) => r.postDataJSON()?.name === 'items list answers')).toHaveLength(2); // the refused one and the created one
    expect((await listed()).map((t) => t.name).sort()).toEqual(['items answer', 'items list answers']);
    expect((await api.get(`/api/tests/${created.id}`)).body).toMatchObject({ description: 'the list answers 200', revision: 2 });
    expect(problems).toEqual([]);
  });
});
