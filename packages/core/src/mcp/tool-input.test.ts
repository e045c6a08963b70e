import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../errors.ts';
import { defineRoute } from '../openapi/route.ts';
import { ARGUMENT_SCHEMA_BUDGET, splitToolArguments, toolInputSchema } from './tool-input.ts';

const ok = { 200: { description: 'ok' } };
const Item = z.strictObject({ name: z.string().min(1).describe('Display name'), tags: z.array(z.string()).default([]) });

describe('toolInputSchema', () => {
  it('puts path parameters, query parameters and body fields side by side; path parameters are required', () => {
    const route = defineRoute({
      method: 'post', path: '/api/projects/:id/items', summary: 's', tags: [], auth: 'member', responses: ok,
      params: z.strictObject({ id: z.uuid().describe('Project id') }),
      query: z.strictObject({ dry_run: z.coerce.boolean().optional() }),
      body: Item,
    });
    const schema = toolInputSchema(route);
    expect(Object.keys(schema.properties)).toEqual(['id', 'dry_run', 'name', 'tags']);
    // A named format stands for itself: zod's 166-character uuid pattern is left out (the server still checks it).
    expect(schema.properties.id).toEqual({ type: 'string', format: 'uuid', description: 'Project id' });
    expect(schema.properties.name).toMatchObject({ type: 'string', minLength: 1 });
    expect(schema.required?.sort()).toEqual(['id', 'name']); // tags has a default: optional on input
  });

  it('nests the body under `body` when it is not an object or a field shares a parameter name', () => {
    const list = defineRoute({ method: 'post', path: '/x', summary: 's', tags: [], auth: 'member', responses: ok, body: z.array(Item) });
    expect(toolInputSchema(list)).toMatchObject({ properties: { body: { type: 'array' } }, required: ['body'] });
    const clash = defineRoute({ method: 'patch', path: '/x/:name', summary: 's', tags: [], auth: 'member', responses: ok, params: z.strictObject({ name: z.string() }), body: Item });
    expect(Object.keys(toolInputSchema(clash).properties)).toEqual(['name', 'body']);
  });

  it('a route without parameters or body takes an empty object', () => {
    expect(toolInputSchema(defineRoute({ method: 'get', path: '/health', summary: 's', tags: [], auth: 'public', responses: ok }))).toEqual({ type: 'object', properties: {} });
  });
});

describe('argument schemas over the budget', () => {
  it('abbreviates a large union of tagged objects to its kinds and their fields; small ones stay whole', () => {
    const padding = 'x'.repeat(ARGUMENT_SCHEMA_BUDGET / 2);
    const Step = z.discriminatedUnion('type', [
      z.strictObject({ type: z.literal('goto'), url: z.string().describe(padding), timeout_ms: z.number().optional() }).describe('Open a URL'),
      z.strictObject({ type: z.literal('click'), selector: z.string().describe(padding) }).describe('Click an element'),
    ]);
    const route = defineRoute({ method: 'post', path: '/t', summary: 's', tags: [], auth: 'member', responses: ok, body: z.strictObject({ name: z.string().describe('Name'), steps: z.array(Step).describe('Ordered steps') }) });
    const schema = toolInputSchema(route);
    expect(schema.properties.name).toEqual({ type: 'string', description: 'Name' });
    const steps = schema.properties.steps as { type: string; description: string; items: { properties: { type: { enum: string[] } }; description: string } };
    expect(steps.type).toBe('array');
    expect(steps.description).toMatch(/^Ordered steps\. Abbreviated here; the server validates the full form/);
    expect(steps.items.properties.type.enum).toEqual(['goto', 'click']);
    expect(steps.items.description).toBe('One of: goto {url, timeout_ms?}: Open a URL; click {selector}: Click an element.');
    expect(JSON.stringify(steps).length).toBeLessThan(ARGUMENT_SCHEMA_BUDGET);
  });
});

describe('splitToolArguments', () => {
  const route = defineRoute({
    method: 'post', path: '/api/projects/:id/items', summary: 's', tags: [], auth: 'member', responses: ok,
    params: z.strictObject({ id: z.string() }),
    query: z.strictObject({ limit: z.coerce.number().optional(), filter: z.string().optional() }),
    body: Item,
  });

  it('fills the path (encoded), turns query values into strings and keeps the rest as the body', () => {
    expect(splitToolArguments(route, { id: 'a/b c', limit: 5, name: 'n', tags: ['t'] })).toEqual({ path: '/api/projects/a%2Fb%20c/items', query: { limit: '5' }, body: { name: 'n', tags: ['t'] } });
  });

  it('names a missing path parameter; leaves body validation to the backend', () => {
    const err = (() => {
      try {
        splitToolArguments(route, { name: 'n' });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'VALIDATION_FAILED', details: { issues: [{ path: 'id', message: 'required' }] } });
    expect(splitToolArguments(route, { id: '1', bogus: true }).body).toEqual({ bogus: true }); // the backend's strict schema names it
  });

  it('refuses arguments that would go nowhere on a route without a body', () => {
    const get = defineRoute({ method: 'get', path: '/api/runs/:id', summary: 's', tags: [], auth: 'viewer', responses: ok, params: z.strictObject({ id: z.string() }) });
    expect(() => splitToolArguments(get, { id: '1', verbose: true })).toThrow(/verbose: unknown argument for this tool/);
    expect(splitToolArguments(get, { id: '1' })).toEqual({ path: '/api/runs/1', query: {} });
  });

  it("takes run_id for a path's id where it can go nowhere else (an agent copies svc_report's argument name)", () => {
    const get = defineRoute({ method: 'get', path: '/api/runs/:id', summary: 's', tags: [], auth: 'viewer', responses: ok, params: z.strictObject({ id: z.string() }) });
    expect(splitToolArguments(get, { run_id: '7' })).toEqual({ path: '/api/runs/7', query: {} });
    // Two candidates, or none: the id is still required, by its name.
    expect(() => splitToolArguments(get, { run_id: '7', test_id: '8' })).toThrow(/id: required/);
    expect(() => splitToolArguments(get, {})).toThrow(/id: required/);
  });
});
