// The Templates panel over the real API in Chromium: a member creates an api template with
// a parameter used as {{template.path}} in a request's url (the API's 400 for an undeclared
// placeholder shown under the steps), edits it, makes a test from it in a project (a value
// missing is said under that value), and the test exists with the url filled in; a viewer
// sees the templates but nothing that writes; deleting asks first.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/server.ts';
import { joinAs, signInAs, startPanelWorld } from './browser.ts';

type World = Awaited<ReturnType<typeof startPanelWorld>>;

describe('templates panel', () => {
  let world: World;
  let tab: Page;
  let problems: string[];
  const PROJECT = 'Template shop';
  const NAME = 'Endpoint answers';
  const rowOf = (name: string) => tab.getByTestId('template-row').filter({ has: tab.getByTestId('template-row-name').getByText(name, { exact: true }) });
  const paramRows = () => tab.getByTestId('template-parameter-row');

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    ({ page: tab, problems } = world);
    // Another project, so that the form has a project to choose.
    expect((await world.api.post('/api/v1/projects', { name: 'Other shop' })).status).toBe(201);
  });
  afterAll(async () => {
    await world?.close();
  });

  it('a member creates a template; an undeclared placeholder is named under the steps', async () => {
    await signInAs(tab, world.server.url, world.server.admin.email, world.server.admin.password);
    await joinAs(tab, world.server.url, world.api, 'templates-member@example.com', 'member', 'Member own org');
    await tab.getByTestId('project-row').filter({ hasText: PROJECT }).waitFor();
    expect(await tab.getByTestId('org-name').textContent()).toMatch(/· member$/);

    await tab.getByTestId('templates-open').click();
    await expect.poll(() => tab.getByTestId('templates-status').textContent()).toBe('No templates yet.');
    await tab.getByTestId('templates-new').click();
    expect(await tab.getByTestId('template-editor-heading').textContent()).toBe('New template');
    await tab.getByTestId('template-name').fill(NAME);
    await tab.getByTestId('template-description').fill('A GET endpoint answers 200');
    await tab.getByTestId('template-type').selectOption('api');
    await tab.getByTestId('template-priority').selectOption('high');
    await tab.getByTestId('template-tags').fill('smoke, api');
    await tab.getByTestId('template-steps').fill(JSON.stringify([{ type: 'request', method: 'GET', url: '{{template.path}}' }]));
    await tab.getByTestId('template-assertions').fill(JSON.stringify([{ type: 'status', equals: 200 }]));

    // No parameter declared yet: the API's 400 names steps.0.url, shown under the steps.
    await tab.getByTestId('template-editor-save').click();
    const stepsError = tab.getByTestId('template-steps-error');
    await expect.poll(() => stepsError.textContent()).toBe('steps.0.url: {{template.path}} is not a declared parameter');
    expect(await tab.getByTestId('template-steps').getAttribute('aria-invalid')).toBe('true');
    expect(await tab.getByTestId('template-editor-error').isHidden()).toBe(true);
    expect((await world.api.get('/api/test-templates')).body.items).toEqual([]);

    // Broken JSON is said under its field, and nothing is sent.
    await tab.getByTestId('template-assertions').fill('[{ "type": ');
    await tab.getByTestId('template-editor-save').click();
    await expect.poll(() => tab.getByTestId('template-assertions-error').textContent()).toMatch(/^Not valid JSON/);
    expect(await stepsError.isHidden()).toBe(true);
    await tab.getByTestId('template-assertions').fill(JSON.stringify([{ type: 'status', equals: 200 }]));

    await tab.getByTestId('template-parameter-add').click();
    await paramRows().nth(0).getByTestId('template-parameter-name').fill('path');
    await paramRows().nth(0).getByTestId('template-parameter-description').fill('the endpoint, from the app root');
    await tab.getByTestId('template-editor-save').click();
    await expect.poll(() => tab.getByTestId('templates-status').textContent()).toBe(`Saved the template “${NAME}”.`);
    expect(await tab.getByTestId('template-editor').isHidden()).toBe(true);
    expect(await rowOf(NAME).getByTestId('template-row-detail').textContent()).toBe('api · high priority · tags smoke, api');
    expect(await rowOf(NAME).getByTestId('template-row-parameters').textContent()).toBe('Parameters: path (required)');
    expect(await rowOf(NAME).getByTestId('template-row-size').textContent()).toBe('1 step · 1 assertion');
    expect(await rowOf(NAME).getByTestId('template-row-description').textContent()).toBe('A GET endpoint answers 200');

    const [stored] = (await world.api.get('/api/test-templates')).body.items;
    expect(stored).toMatchObject({
      name: NAME, description: 'A GET endpoint answers 200', type: 'api', priority: 'high', tags: ['smoke', 'api'],
      parameters: [{ name: 'path', description: 'the endpoint, from the app root' }],
      steps: [{ type: 'request', method: 'GET', url: '{{template.path}}' }], assertions: [{ type: 'status', equals: 200 }],
    });
    expect(problems).toEqual([]);
  }, 90_000);

  it('edits it: the fields show the template, a taken name is said under the name, a change is saved', async () => {
    expect((await world.api.post('/api/test-templates', { name: 'Page renders', type: 'ui', steps: [{ type: 'goto', url: '/' }] })).status).toBe(201);
    await tab.getByTestId('templates-close').click();
    await tab.getByTestId('templates-open').click();
    await expect.poll(() => tab.getByTestId('template-row-name').allTextContents()).toEqual([NAME, 'Page renders']);

    await rowOf(NAME).getByTestId('template-row-edit').click();
    await expect.poll(() => tab.getByTestId('template-editor-heading').textContent()).toBe(`Edit template · ${NAME}`);
    expect(await tab.getByTestId('template-name').inputValue()).toBe(NAME);
    expect(await tab.getByTestId('template-type').inputValue()).toBe('api');
    expect(await tab.getByTestId('template-tags').inputValue()).toBe('smoke, api');
    expect(await paramRows().count()).toBe(1);
    expect(JSON.parse(await tab.getByTestId('template-steps').inputValue())).toEqual([{ type: 'request', method: 'GET', url: '{{template.path}}' }]);

    await tab.getByTestId('template-name').fill('page RENDERS');
    await tab.getByTestId('template-editor-save').click();
    await expect.poll(() => tab.getByTestId('template-name-error').textContent()).toMatch(/exists already/);
    await tab.getByTestId('template-name').fill(NAME);

    // A second parameter, with a default, used in a second assertion.
    await tab.getByTestId('template-parameter-add').click();
    await paramRows().nth(1).getByTestId('template-parameter-name').fill('kind');
    await paramRows().nth(1).getByTestId('template-parameter-description').fill('what the body is');
    await paramRows().nth(1).getByTestId('template-parameter-default').fill('json');
    await tab.getByTestId('template-assertions').fill(JSON.stringify([{ type: 'status', equals: 200 }, { type: 'header', header: 'content-type', contains: '{{template.kind}}' }]));
    await tab.getByTestId('template-priority').selectOption('critical');
    await tab.getByTestId('template-editor-save').click();
    await expect.poll(() => tab.getByTestId('templates-status').textContent()).toBe(`Saved the template “${NAME}”.`);
    expect(await tab.getByTestId('template-name-error').isHidden()).toBe(true);
    expect(await rowOf(NAME).getByTestId('template-row-parameters').textContent()).toBe('Parameters: path (required), kind = json');
    expect(await rowOf(NAME).getByTestId('template-row-detail').textContent()).toBe('api · critical priority · tags smoke, api');
    const stored = (await world.api.get('/api/test-templates')).body.items.find((t: { name: string }) => t.name === NAME);
    expect(stored).toMatchObject({ priority: 'critical', parameters: [{ name: 'path' }, { name: 'kind', description: 'what the body is', default: 'json' }] });
    expect(stored.assertions).toHaveLength(2);
    expect(problems).toEqual([]);
  }, 60_000);

  it('makes a test from it in a project with a value; the test has the url filled in', async () => {
    await rowOf(NAME).getByTestId('template-row-use').click();
    expect(await tab.getByTestId('template-use-heading').textContent()).toBe(`New test from ${NAME}`);
    await expect.poll(async () => (await tab.getByTestId('template-use-project').locator('option').allTextContents()).sort()).toEqual(['Choose a project', 'Other shop', PROJECT]);
    expect(await tab.getByTestId('template-value-path-hint').textContent()).toBe('the endpoint, from the app root · Required: no default');
    expect(await tab.getByTestId('template-value-kind-hint').textContent()).toBe('what the body is · Default: json (used when left empty)');
    expect(await tab.getByTestId('template-value-kind').getAttribute('placeholder')).toBe('json');

    // No project chosen: said under the project; then no value for the required parameter: said under that value.
    await tab.getByTestId('template-use-submit').click();
    await expect.poll(() => tab.getByTestId('template-use-project-error').textContent()).toBe('Choose the project the test goes in.');
    await tab.getByTestId('template-use-project').selectOption({ label: PROJECT });
    await tab.getByTestId('template-use-submit').click();
    await expect.poll(() => tab.getByTestId('template-value-path-error').textContent()).toBe('Give path a value: it has no default.');
    expect(await tab.getByTestId('template-use-project-error').isHidden()).toBe(true);
    expect(await tab.getByTestId('template-value-path').getAttribute('aria-invalid')).toBe('true');
    expect((await world.api.get(`/api/tests?project_id=${world.projectId}`)).body.items).toEqual([]);

    // A value that makes a bad test (a url over 8000 characters) is said under that value, with the field it broke.
    await tab.getByTestId('template-value-path').fill(`/${'x'.repeat(8000)}`);
    await tab.getByTestId('template-use-submit').click();
    await expect.poll(() => tab.getByTestId('template-value-path-error').textContent()).toMatch(/^steps\.0\.url: ./);
    expect(await tab.getByTestId('template-use-error').isHidden()).toBe(true);
    await tab.getByTestId('template-value-path').fill('/api/items');
    await tab.getByTestId('template-use-name').fill('items endpoint answers');
    await tab.getByTestId('template-use-submit').click();
    await expect.poll(() => tab.getByTestId('template-use-created-text').textContent()).toBe(`Created the test items endpoint answers in ${PROJECT}.`);
    expect(await tab.getByTestId('template-use').isHidden()).toBe(true);

    const tests = (await world.api.get(`/api/tests?project_id=${world.projectId}`)).body.items;
    expect(tests).toHaveLength(1);
    expect(tests[0]).toMatchObject({
      name: 'items endpoint answers', type: 'api', priority: 'critical', tags: ['smoke', 'api'],
      steps: [{ type: 'request', method: 'GET', url: '/api/items' }],
      assertions: [{ type: 'status', equals: 200 }, { type: 'header', header: 'content-type', contains: 'json' }],
    });

    // Show in Tests opens the project's Tests panel with the new test.
    await tab.getByTestId('template-use-open-tests').click();
    await expect.poll(() => tab.getByTestId('tests-heading').textContent()).toBe(`Tests · ${PROJECT}`);
    await expect.poll(() => tab.getByTestId('test-row-name').allTextContents()).toEqual(['items endpoint answers']);
    expect(problems).toEqual([]);
  }, 60_000);

  it('a viewer sees the templates but nothing that writes', async () => {
    const viewer = await joinAs(tab, world.server.url, world.api, 'templates-viewer@example.com', 'viewer', 'Viewer own org');
    await tab.getByTestId('project-row').filter({ hasText: PROJECT }).waitFor();
    expect(await tab.getByTestId('org-name').textContent()).toMatch(/· viewer$/);
    await tab.getByTestId('templates-open').click();
    await expect.poll(() => tab.getByTestId('template-row-name').allTextContents()).toEqual([NAME, 'Page renders']);
    expect(await rowOf(NAME).getByTestId('template-row-parameters').textContent()).toBe('Parameters: path (required), kind = json');
    expect(await tab.getByTestId('templates-new').isHidden()).toBe(true);
    for (const id of ['template-row-use', 'template-row-edit', 'template-delete']) expect(await tab.getByTestId(id).count()).toBe(0);
    // The API refuses a viewer's write as the panel does.
    const viewerApi = client(world.server.url, { token: viewer.token, org: world.server.admin.organizationId });
    expect((await viewerApi.post('/api/test-templates', { name: 'by a viewer', type: 'ui' })).status).toBe(403);
    expect(problems).toEqual([]);
  }, 60_000);

  it('deletes a template only once the confirm is accepted', async () => {
    await tab.getByTestId('sign-out').click();
    await tab.waitForURL((url) => url.pathname === '/sign-in');
    await signInAs(tab, world.server.url, 'templates-member@example.com', 'correct horse battery');
    await tab.getByTestId('templates-open').click();
    await expect.poll(() => tab.getByTestId('template-row-name').allTextContents()).toEqual([NAME, 'Page renders']);

    tab.once('dialog', (dialog) => void dialog.dismiss());
    await rowOf(NAME).getByTestId('template-delete').click();
    expect((await world.api.get('/api/test-templates')).body.items).toHaveLength(2);

    let question = '';
    tab.once('dialog', (dialog) => {
      question = dialog.message();
      void dialog.accept();
    });
    await rowOf(NAME).getByTestId('template-delete').click();
    await expect.poll(() => tab.getByTestId('template-row-name').allTextContents()).toEqual(['Page renders']);
    expect(question).toBe(`Delete the template “${NAME}”? Tests made from it stay.`);
    expect((await world.api.get('/api/test-templates')).body.items.map((t: { name: string }) => t.name)).toEqual(['Page renders']);
    // Tests made from a deleted template stay.
    expect((await world.api.get(`/api/tests?project_id=${world.projectId}`)).body.items).toHaveLength(1);
    expect(problems).toEqual([]);
  }, 60_000);
});
