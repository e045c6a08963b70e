import { z } from 'zod';
import type { Hono } from 'hono';
import { QuarantineInput, TestSchema, TestCreateInput, TestListQuery, TestSummarySchema, TestUpdateInput, testSummary } from '@svc/core/contracts/test';
import { listResponse } from '@svc/core/contracts/common';
import { notFound, validationFailed } from '@svc/core/errors';
import { browserSettingsIssues } from '../../execution/browser/device-check.ts';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { createTest } from '../create-test.ts';
import { flowService } from '@svc/core/services/flows';
import { refuseBaselineClashes } from '../baseline-clashes.ts';
import { actorOf } from '../actor.ts';
import { ETAG_HEADER, IF_MATCH_HEADER, expectedRevision, revisionEtag } from '../if-match.ts';
import { testRevisionRoutes } from './test-revisions.ts';
import { applyHealRoutes } from './apply-heal.ts';

const IdParams = z.strictObject({ id: z.uuid().describe('Test id') });

/** Device names are Playwright's, which only the browser adapter knows: checked here, naming the field. */
function checkBrowserSettings(settings: Parameters<typeof browserSettingsIssues>[0]): void {
  const issues = browserSettingsIssues(settings, 'browser');
  if (issues.length) throw validationFailed(issues);
}

/** Tests; creating one publishes test.created (spec: emission rule 1). */
export function testRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const { store } = deps;

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/tests', summary: 'List tests, newest first', tags: ['tests'], auth: 'viewer', query: TestListQuery,
    responses: { 200: { description: 'tests (view=summary: each without its lists, counted)', schema: listResponse(z.union([TestSchema, TestSummarySchema])) } },
  }, async ({ c, query, access }) => {
    if (query.project_id && !(await store.projects.get(access.organizationId, query.project_id))) throw notFound('project');
    const page = await store.tests.list(access.organizationId, { projectId: query.project_id, limit: query.limit, cursor: query.cursor });
    const items = page.items.filter((t) => (!query.status || t.status === query.status) && (!query.type || t.type === query.type) && (query.quarantined === undefined || !!t.quarantine === query.quarantined));
    return c.json({ items: query.view === 'summary' ? items.map(testSummary) : items, next_cursor: page.next_cursor });
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/tests/:id', summary: 'Get a test', tags: ['tests'], auth: 'viewer', params: IdParams,
    responses: { 200: { description: 'test', schema: TestSchema, headers: ETAG_HEADER }, 404: { description: 'no such test in this organization' } },
  }, async ({ c, params, access }) => {
    const test = await store.tests.get(access.organizationId, params.id);
    if (!test) throw notFound('test');
    c.header('ETag', revisionEtag(test.revision));
    return c.json(test);
  });

  mountRoute(app, deps, registry, {
    method: 'patch', path: '/api/tests/:id', summary: 'Change a test: any of name, description, type, steps, assertions, priority, tags, timeout_ms, parameters, parameter_sets, browser (lists and maps are replaced whole)', tags: ['tests'], auth: 'member', params: IdParams, body: TestUpdateInput, headers: [IF_MATCH_HEADER],
    responses: {
      200: { description: 'the test as changed (ETag: its revision)', schema: TestSchema, headers: ETAG_HEADER },
      404: { description: 'no such test in this organization' },
      412: { description: 'the test is no longer at the revision in If-Match or expected_revision (PRECONDITION_FAILED names the current one, who changed it and when)' },
    },
  }, async ({ c, params, body, access, principal }) => {
    checkBrowserSettings(body.browser);
    const { expected_revision, ...patch } = body;
    const expected = expectedRevision(c, expected_revision);
    if (patch.steps || patch.assertions) {
      const current = await store.tests.get(access.organizationId, params.id);
      if (!current) throw notFound('test');
      // New steps' uses are checked against the test's project's flows (400 naming steps.N.flow).
      if (patch.steps?.some((s) => s.type === 'use')) await flowService({ store }).checkUses(access.organizationId, current.project_id, patch.steps);
      refuseBaselineClashes({ steps: patch.steps ?? current.steps, assertions: patch.assertions ?? current.assertions });
    }
    const test = await store.tests.update(access.organizationId, params.id, patch, { changed_by: actorOf(principal), source: 'edited' }, expected);
    if (!test) throw notFound('test');
    c.set('audit', { action: 'test.update', resource: `test:${test.id}`, metadata: { fields: Object.keys(patch).sort(), project_id: test.project_id, revision: test.revision } });
    c.header('ETag', revisionEtag(test.revision));
    return c.json(test);
  });

  mountRoute(app, deps, registry, {
    method: 'delete', path: '/api/tests/:id', summary: 'Delete a test; its past results stay with their runs', tags: ['tests'], auth: 'member', params: IdParams,
    responses: { 204: { description: 'deleted' }, 404: { description: 'no such test in this organization' } },
  }, async ({ c, params, access }) => {
    const test = await store.tests.delete(access.organizationId, params.id);
    if (!test) throw notFound('test');
    c.set('audit', { action: 'test.delete', resource: `test:${test.id}`, metadata: { name: test.name, project_id: test.project_id } });
    return c.body(null, 204);
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/tests/:id/quarantine', summary: 'Quarantine a test: it keeps running, but its failure no longer fails the run (statuses, notifications, exit codes)', tags: ['tests'], auth: 'member', params: IdParams, body: QuarantineInput,
    responses: { 200: { description: 'the test, quarantined (again: the reason and time are replaced)', schema: TestSchema }, 404: { description: 'no such test in this organization' } },
  }, async ({ c, params, body, access, principal }) => {
    const test = await store.tests.setQuarantine(access.organizationId, params.id, { reason: body.reason, since: deps.clock.now().toISOString(), by: principal.userId ?? null });
    if (!test) throw notFound('test');
    c.set('audit', { action: 'test.quarantine', resource: `test:${test.id}`, metadata: { reason: body.reason, project_id: test.project_id } });
    return c.json(test);
  });

  mountRoute(app, deps, registry, {
    method: 'delete', path: '/api/tests/:id/quarantine', summary: 'Release a test from quarantine: its failures fail runs again', tags: ['tests'], auth: 'member', params: IdParams,
    responses: { 200: { description: 'the test, released (also when it was not quarantined)', schema: TestSchema }, 404: { description: 'no such test in this organization' } },
  }, async ({ c, params, access }) => {
    const test = await store.tests.setQuarantine(access.organizationId, params.id, null);
    if (!test) throw notFound('test');
    c.set('audit', { action: 'test.release', resource: `test:${test.id}`, metadata: { project_id: test.project_id } });
    return c.json(test);
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/tests', summary: 'Create a test; publishes test.created', tags: ['tests'], auth: 'member', body: TestCreateInput,
    responses: { 201: { description: 'created', schema: TestSchema, headers: ETAG_HEADER }, 404: { description: 'no such project in this organization' } },
  }, async ({ c, body, access, principal }) => {
    checkBrowserSettings(body.browser);
    if (!(await store.projects.get(access.organizationId, body.project_id))) throw notFound('project');
    const test = await createTest(deps, access.organizationId, c.get('requestId'), body, actorOf(principal));
    c.set('audit', { action: 'test.create', resource: `test:${test.id}`, metadata: { name: test.name, project_id: test.project_id } });
    c.header('ETag', revisionEtag(test.revision));
    return c.json(test, 201);
  });

  testRevisionRoutes(app, deps, registry);
  applyHealRoutes(app, deps, registry);
}
