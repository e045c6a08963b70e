/**
 * POST /api/quality/audit through the real local server: its browser opens the fixture
 * app's /a11y page (four accessibility violations, no security headers, a cookie without
 * HttpOnly or SameSite, a console error and a missing image) and /a11y/clean (none of it),
 * and the report names what it found. Also bad input naming the field, URLs outside the
 * project's hosts, another organization's project, no credentials, the audit log, and the
 * svc_quality_audit tool through the MCP SDK's own client.
 */
import { describe, expect, it } from 'vitest';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { QualityAuditReport } from '@svc/core/contracts/quality-audit';
import { client } from '../support/server.ts';
import { twoTenantsForFile } from '../support/two-tenants.ts';

const env = twoTenantsForFile('audit');

const ids = (r: QualityAuditReport, check: string) => r.findings.filter((f) => f.check === check).map((f) => f.id).sort();
const issuesOf = (res: { body: { error: { details: { issues: Array<{ path: string; message: string }> } } } }) => res.body.error.details.issues;

describe('POST /api/quality/audit', () => {
  it('reports the broken page: axe violations with a score, security headers and cookie, console error and missing image', async () => {
    const res = await env.api.post('/api/quality/audit', { project_id: env.projectId, url: '/a11y' });
    expect(res.status, res.text).toBe(200);
    const r = QualityAuditReport.parse(res.body);
    expect(r).toMatchObject({ url: `${env.fixture.url}/a11y`, final_url: `${env.fixture.url}/a11y`, status: 200, checks: ['accessibility', 'security', 'performance', 'console'], fail_on: 'high', passed: false });
    expect(ids(r, 'accessibility')).toEqual(['button-name', 'color-contrast', 'image-alt', 'label']);
    expect(r.accessibility).toMatchObject({ score: 10, violations_by_impact: { critical: 3, serious: 1, moderate: 0, minor: 0 } });
    expect(r.findings.find((f) => f.id === 'image-alt')).toMatchObject({ severity: 'critical', targets: ['#no-alt'], fix: expect.stringContaining('dequeuniversity.com') });
    expect(r.findings.find((f) => f.id === 'color-contrast')!.severity).toBe('high');
    // http: no HSTS or Secure asked for.
    expect(ids(r, 'security')).toEqual(['cookie-no-samesite', 'cookie-not-httponly', 'missing-csp', 'missing-frame-protection', 'missing-nosniff', 'missing-referrer-policy']);
    expect(r.security).toMatchObject({ https: false, cookies: [{ name: 'fixture_pref', secure: false, http_only: false, same_site: null }], headers: { 'content-security-policy': null } });
    expect(r.findings.find((f) => f.id === 'missing-csp')).toMatchObject({ severity: 'medium', fix: expect.stringContaining('Content-Security-Policy') });
    expect(ids(r, 'console')).toEqual(['console-error', 'request-error-status']);
    expect(r.console!.errors).toEqual(['fixture: the accessibility widget failed to load']);
    expect(r.console!.failed_requests).toEqual([{ url: `${env.fixture.url}/missing-image.png`, status: 404, failure: null }]);
    const p = r.performance!;
    for (const v of [p.ttfb_ms, p.dom_content_loaded_ms, p.load_ms, p.lcp_ms]) expect(v).toBeGreaterThan(0);
    expect(p.requests).toBe(2);
    expect(p.transfer_bytes).toBeGreaterThan(1000);
    // Most severe first, counted per severity and check.
    expect(r.findings[0].severity).toBe('critical');
    expect(r.summary).toEqual({ findings: r.findings.length, by_severity: { critical: 3, high: 1, medium: 4, low: 4, info: 0 }, by_check: { accessibility: 4, security: 6, performance: 0, console: 2 } });
  });

  it('passes the clean page with the checks asked for only, on /api/v1 too', async () => {
    const res = await env.api.post('/api/v1/quality/audit', { project_id: env.projectId, url: `${env.fixture.url}/a11y/clean`, checks: ['security', 'accessibility'] });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ passed: true, checks: ['accessibility', 'security'], findings: [], accessibility: { score: 100 }, security: { headers: { 'x-frame-options': 'DENY' } } });
    expect(res.body.performance).toBeUndefined();
    expect(res.body.console).toBeUndefined();
  });

  it('min_impact and fail_on change what counts: below min_impact a violation is info', async () => {
    const res = await env.api.post('/api/quality/audit', { project_id: env.projectId, url: '/a11y', checks: ['accessibility'], accessibility: { min_impact: 'critical', tags: ['wcag2aa'] }, fail_on: 'critical' });
    expect(res.status, res.text).toBe(200);
    // wcag2aa alone is the contrast rule; serious is below critical.
    expect(res.body.findings).toEqual([expect.objectContaining({ id: 'color-contrast', severity: 'info' })]);
    expect(res.body.passed).toBe(true);
  });

  it('answers 400 naming the field for bad input, URLs outside the project\'s hosts and tags axe does not have', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ checks: ['speed'] }, 'checks.0'],
      [{ checks: [] }, 'checks'],
      [{ accessibility: { min_impact: 'severe' } }, 'accessibility.min_impact'],
      [{ accessibility: { tags: ['not a tag'] } }, 'accessibility.tags.0'],
      [{ fail_on: 'sometimes' }, 'fail_on'],
      [{ url: 'ftp://example.com/' }, 'url'],
      [{ url: 'http://169.254.169.254/latest/meta-data' }, 'url'],
      [{ accessibility: { tags: ['wcag99zz'] } }, 'accessibility.tags'],
      [{ surprise: 1 }, 'surprise'],
    ];
    for (const [body, path] of cases) {
      const res = await env.api.post('/api/quality/audit', { project_id: env.projectId, url: '/a11y/clean', ...body });
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(issuesOf(res).map((i) => i.path), JSON.stringify(body)).toContain(path);
    }
    const outside = await env.api.post('/api/quality/audit', { project_id: env.projectId, url: 'http://169.254.169.254/' });
    expect(issuesOf(outside)[0].message).toMatch(/outside the allowed hosts/);
    const unknownTag = await env.api.post('/api/quality/audit', { project_id: env.projectId, url: '/a11y/clean', accessibility: { tags: ['wcag99zz'] } });
    expect(issuesOf(unknownTag)[0].message).toBe('axe-core has no such rules: unknown tag wcag99zz');
    const noProject = await env.api.post('/api/quality/audit', { url: '/a11y' });
    expect(issuesOf(noProject).map((i) => i.path)).toEqual(['project_id']);
  });

  it("answers 404 for another organization's project and 401 without credentials", async () => {
    const theirs = await env.api.post('/api/quality/audit', { project_id: env.strangerProjectId, url: '/a11y' });
    expect(theirs.status).toBe(404);
    const anonymous = await env.api.post('/api/quality/audit', { project_id: env.projectId }, { token: null, org: null });
    expect(anonymous.status).toBe(401);
  });

  it('is in the audit log and the OpenAPI document', async () => {
    const log = await env.api.get('/api/audit-logs?action=quality.audit');
    expect(log.status, log.text).toBe(200);
    expect(log.body.items[0]).toMatchObject({ action: 'quality.audit', resource: `project:${env.projectId}` });
    const openapi = await env.api.get('/api/openapi.json');
    const op = openapi.body.paths['/api/quality/audit'].post;
    const schema = op.requestBody.content['application/json'].schema;
    const body = schema.$ref ? openapi.body.components.schemas[schema.$ref.split('/').pop()] : schema;
    expect(body.properties).toHaveProperty('checks');
    expect(body.required).toEqual(['project_id']);
    expect(openapi.body.paths['/api/v1/quality/audit']).toBeDefined();
  });

  it('svc_quality_audit answers with the same report through the MCP client', async () => {
    const mcp = new McpClient({ name: 'svc-test-agent', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${env.server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${env.server.admin.apiKey}` } } }));
    try {
      const admin = client(env.server.url, { token: env.server.admin.apiKey });
      const mine = (await admin.post('/api/v1/projects', { name: 'mcp audit', app_url: env.fixture.url })).body.id;
      const r = (await mcp.callTool({ name: 'svc_quality_audit', arguments: { project_id: mine, url: '/a11y', checks: ['accessibility'] } })) as CallToolResult;
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      const report = QualityAuditReport.parse(r.structuredContent);
      expect(ids(report, 'accessibility')).toEqual(['button-name', 'color-contrast', 'image-alt', 'label']);
      const bad = (await mcp.callTool({ name: 'svc_quality_audit', arguments: { project_id: mine, checks: ['speed'] } })) as CallToolResult;
      expect(bad.isError).toBe(true);
      expect(JSON.stringify(bad.content)).toContain('checks.0');
    } finally {
      await mcp.close();
    }
  });
});
