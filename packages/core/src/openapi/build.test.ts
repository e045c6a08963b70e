import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildOpenApiDocument } from './build.ts';
import { defineRoute, toOpenApiPath } from './route.ts';
import { checkOpenApiDocument } from './validate.ts';
import { listResponse, ListQuery } from '../contracts/common.ts';
import { ProjectCreateInput, ProjectSchema, ProjectUpdateInput } from '../contracts/project.ts';
import { TestCreateInput, TestListQuery, TestSchema } from '../contracts/test.ts';
import { LoginInput, AuthSessionSchema } from '../contracts/auth.ts';

const IdParams = z.strictObject({ id: z.uuid().describe('Project id') });

const routes = [
  defineRoute({
    method: 'get', path: '/api/v1/projects', summary: 'List projects', tags: ['projects'], auth: 'viewer', query: ListQuery,
    responses: { 200: { description: 'projects', schema: listResponse(ProjectSchema) } },
  }),
  defineRoute({
    method: 'post', path: '/api/v1/projects', summary: 'Create a project', tags: ['projects'], auth: 'member', body: ProjectCreateInput,
    responses: { 201: { description: 'created', schema: ProjectSchema } },
  }),
  defineRoute({
    method: 'patch', path: '/api/v1/projects/:id', summary: 'Update a project', tags: ['projects'], auth: 'member', params: IdParams, body: ProjectUpdateInput,
    responses: { 200: { description: 'updated', schema: ProjectSchema }, 404: { description: 'no such project' } },
  }),
  defineRoute({
    method: 'get', path: '/api/tests', summary: 'List tests', tags: ['tests'], auth: 'viewer', query: TestListQuery,
    responses: { 200: { description: 'tests', schema: listResponse(TestSchema) } },
  }),
  defineRoute({
    method: 'post', path: '/api/tests', summary: 'Create a test', tags: ['tests'], auth: 'member', body: TestCreateInput,
    responses: { 201: { description: 'created', schema: TestSchema } },
  }),
  defineRoute({
    method: 'get', path: '/api/tests/{id}/runs/:run_id', summary: 'Mixed style path', tags: ['tests'], auth: 'viewer',
    responses: { 204: { description: 'nothing' } },
  }),
  defineRoute({
    method: 'post', path: '/api/auth/login', summary: 'Log in', tags: ['auth'], auth: 'public', body: LoginInput,
    responses: { 200: { description: 'session', schema: AuthSessionSchema } },
  }),
  defineRoute({
    method: 'get', path: '/api/v1/users/me', summary: 'Me', tags: ['users'], auth: 'user', apiKeys: false,
    responses: { 200: { description: 'me', schema: z.object({ ok: z.boolean() }) } },
  }),
];

describe('defineRoute', () => {
  it('converts Hono paths', () => {
    expect(toOpenApiPath('/a/:id/b/:x{[0-9]+}/c/{y}')).toBe('/a/{id}/b/{x}/c/{y}');
  });
  it('rejects params that disagree with the path', () => {
    expect(() => defineRoute({ method: 'get', path: '/a/:id', summary: 's', tags: [], auth: 'public', params: z.object({ key: z.string() }), responses: { 200: { description: 'ok' } } })).toThrow(
      /not in params: id; not in path: key/,
    );
  });
});

describe('buildOpenApiDocument', () => {
  const doc = buildOpenApiDocument(routes, { title: 'svc API', version: '1.2.3', serverUrl: 'http://localhost:8787' });

  it('is structurally valid', () => {
    expect(checkOpenApiDocument(doc)).toEqual([]);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: 'http://localhost:8787' }]);
  });

  it('the structural check catches dangling refs and undeclared path params', () => {
    const broken = structuredClone(doc) as unknown as { paths: Record<string, Record<string, { parameters?: unknown[] }>>; components: { schemas: Record<string, unknown> } };
    delete broken.components.schemas.Project;
    broken.paths['/api/v1/projects/{id}']!.patch!.parameters = [];
    const problems = checkOpenApiDocument(broken);
    expect(problems.some((p) => p.includes('#/components/schemas/Project does not resolve'))).toBe(true);
    expect(problems.some((p) => p.includes('{id} is not declared'))).toBe(true);
  });

  it('uses OpenAPI path syntax and declares path params', () => {
    expect(Object.keys(doc.paths)).toContain('/api/v1/projects/{id}');
    expect(Object.keys(doc.paths)).toContain('/api/tests/{id}/runs/{run_id}');
    const patch = doc.paths['/api/v1/projects/{id}']!.patch as { parameters: { name?: string; in?: string; required?: boolean; description?: string }[] };
    expect(patch.parameters[0]).toMatchObject({ name: 'id', in: 'path', required: true, description: 'Project id' });
  });

  it('names components after contract exports, with input and output forms', () => {
    const names = Object.keys(doc.components.schemas);
    expect(names).toEqual(expect.arrayContaining(['Project', 'ProjectList', 'ProjectCreateInput', 'ProjectUpdateInput', 'Test', 'TestList', 'TestCreateInput', 'ErrorBody', 'AuthSession', 'LoginInput']));
    expect(names).toContain('GetApiV1UsersMe200Response');
    const post = doc.paths['/api/v1/projects']!.post as { requestBody: { content: Record<string, { schema: { $ref: string } }> } };
    expect(post.requestBody.content['application/json']!.schema.$ref).toBe('#/components/schemas/ProjectCreateInput');
  });

  it('request bodies use the input form: defaults are optional', () => {
    const create = doc.components.schemas.TestCreateInput as { required: string[]; properties: Record<string, { default?: unknown }> };
    expect(create.required).toEqual(['project_id', 'name', 'type']);
    expect(create.properties.priority!.default).toBe('medium');
  });

  it('documents aliases as deprecated properties', () => {
    const create = doc.components.schemas.ProjectCreateInput as { properties: Record<string, { deprecated?: boolean }> };
    expect(create.properties.url).toMatchObject({ deprecated: true });
    expect(create.properties.settings).toMatchObject({ deprecated: true });
  });

  it('query schemas become query parameters', () => {
    const list = doc.paths['/api/tests']!.get as { parameters: { name?: string; in?: string; $ref?: string; schema?: { default?: unknown } }[] };
    expect(list.parameters.filter((p) => p.in === 'query').map((p) => p.name)).toEqual(['limit', 'cursor', 'view', 'project_id', 'status', 'type', 'quarantined']);
    expect(list.parameters.find((p) => p.name === 'limit')!.schema!.default).toBe(50);
  });

  it('adds auth, the organization header and standard errors', () => {
    const login = doc.paths['/api/auth/login']!.post as { security: unknown[]; parameters?: unknown[]; responses: Record<string, unknown> };
    expect(login.security).toEqual([]);
    expect(login.parameters).toBeUndefined();
    expect(login.responses['401']).toBeUndefined();
    const list = doc.paths['/api/v1/projects']!.get as { security: Record<string, unknown>[]; parameters: { $ref?: string }[]; responses: Record<string, { $ref?: string }> };
    expect(list.security.map((s) => Object.keys(s)[0])).toEqual(['bearerAuth', 'cookieAuth', 'apiKeyAuth']);
    expect(list.parameters.some((p) => p.$ref === '#/components/parameters/OrganizationId')).toBe(true);
    expect(list.responses['401']!.$ref).toBe('#/components/responses/Unauthenticated');
    expect(list.responses.default!.$ref).toBe('#/components/responses/Error');
    const me = doc.paths['/api/v1/users/me']!.get as { security: Record<string, unknown>[]; parameters?: unknown[] };
    expect(me.security.map((s) => Object.keys(s)[0])).toEqual(['bearerAuth', 'cookieAuth']);
    expect(me.parameters).toBeUndefined();
    expect(doc.components.securitySchemes).toMatchObject({
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      cookieAuth: { type: 'apiKey', in: 'cookie', name: 'svc_session' },
      apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    });
  });

  it('error responses without a schema use ErrorBody', () => {
    const patch = doc.paths['/api/v1/projects/{id}']!.patch as { responses: Record<string, { content?: Record<string, { schema: { $ref: string } }> }> };
    expect(patch.responses['404']!.content!['application/json']!.schema.$ref).toBe('#/components/schemas/ErrorBody');
  });

  it('is deterministic', () => {
    expect(JSON.stringify(buildOpenApiDocument(routes, { title: 'svc API', version: '1.2.3', serverUrl: 'http://localhost:8787' }))).toBe(JSON.stringify(doc));
  });
});
