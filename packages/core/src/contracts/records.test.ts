import { describe, expect, it } from 'vitest';
import { id, issues, now, parseInput, paths } from './test-support.ts';
import { ActivityLogSchema } from './activity-log.ts';
import { TeamMemberCreateInput, TeamMemberSchema } from './team-member.ts';
import { VisualBaselineSchema } from './visual-baseline.ts';
import { DiscoveredElementSchema, DiscoveredFlowSchema, DiscoveredPageSchema, DiscoverySessionSchema, DiscoveryStartInput } from './discovery.ts';
import { AiUsageDailySchema, AiUsageSchema } from './ai-usage.ts';
import { GeneratedTestSchema } from './generated-test.ts';
import { HealingPatternQuery, HealingPatternSchema } from './healing-pattern.ts';

const ok = (s: { safeParse(v: unknown): { success: boolean } }, v: unknown) => s.safeParse(v).success;

describe('other records', () => {
  it('activity log type ≤ 50', () => {
    const a = { id: id(), project_id: id(), type: 'run.started', message: 'm', metadata: {}, timestamp: now };
    expect(ok(ActivityLogSchema, a)).toBe(true);
    expect(ok(ActivityLogSchema, { ...a, type: 'x'.repeat(51) })).toBe(false);
  });
  it('team member', () => {
    expect(ok(TeamMemberSchema, { id: id(), project_id: id(), user_id: 'u', role: 'viewer', invited_at: now })).toBe(true);
    expect(parseInput(TeamMemberCreateInput, { user_id: 'u' })).toEqual({ user_id: 'u', role: 'member' });
    expect(paths(TeamMemberCreateInput, { user_id: 'u', role: 'owner' })).toEqual(['role']);
    expect(issues(TeamMemberCreateInput, { user_id: 'u', email: 'x' })).toEqual([{ path: 'email', message: 'unknown field' }]);
  });
  it('visual baseline hash is a sha-256', () => {
    const b = { id: id(), test_id: id(), screenshot_hash: 'a'.repeat(64), metadata: {}, created_at: now };
    expect(ok(VisualBaselineSchema, b)).toBe(true);
    expect(ok(VisualBaselineSchema, { ...b, screenshot_hash: 'a'.repeat(63) })).toBe(false);
  });
  it('discovery', () => {
    const project_id = id();
    expect(parseInput(DiscoveryStartInput, { project_id })).toEqual({ project_id, mode: 'dom_only', strategy: 'priority', max_pages: 50 });
    expect(paths(DiscoveryStartInput, { project_id, max_pages: 0 })).toEqual(['max_pages']);
    expect(paths(DiscoveryStartInput, { project_id, start_url: 'file:///etc/passwd' })).toEqual(['start_url']);
    const s = {
      id: id(), project_id, name: 'n', status: 'running', start_url: 'https://a.example', mode: 'dom_only', strategy: 'priority', max_pages: 50,
      page_graph: {}, quality_score: null, insights: {}, created_at: now, completed_at: null,
    };
    expect(ok(DiscoverySessionSchema, s)).toBe(true);
    expect(ok(DiscoverySessionSchema, { ...s, status: 'paused' })).toBe(false);
    expect(ok(DiscoveredPageSchema, { id: id(), discovery_session_id: id(), url: 'u', page_type: 'form', screenshot_url: null, element_count: 3, importance_score: 0.5, risk_score: 0.1 })).toBe(true);
    expect(ok(DiscoveredElementSchema, { id: id(), page_id: id(), selector: '#a', category: 'button', label: null, importance_score: 1, stability_score: 1 })).toBe(true);
    expect(ok(DiscoveredFlowSchema, { id: id(), discovery_session_id: id(), name: 'f', flow_type: 'crud', steps: [], complexity_score: 1, validated: 'yes' })).toBe(false);
  });
  it('ai usage', () => {
    const u = { id: id(), organization_id: id(), run_id: null, model: 'm', input_tokens: 1, output_tokens: 2, cost_usd: 0.01, task_type: 'plan_tests', created_at: now };
    expect(ok(AiUsageSchema, u)).toBe(true);
    expect(ok(AiUsageSchema, { ...u, input_tokens: -1 })).toBe(false);
    expect(ok(AiUsageDailySchema, { organization_id: id(), date: '2025-01-31', request_count: 1, input_tokens: 1, output_tokens: 1, cost_usd: 0 })).toBe(true);
    expect(ok(AiUsageDailySchema, { organization_id: id(), date: '2025-01-31T00:00:00Z', request_count: 1, input_tokens: 1, output_tokens: 1, cost_usd: 0 })).toBe(false);
  });
  it('generated test confidence is 0..1', () => {
    const g = { id: id(), project_id: id(), name: 'n', code: 'test()', confidence_score: 0.7, github_pr_url: null, created_at: now };
    expect(ok(GeneratedTestSchema, g)).toBe(true);
    expect(ok(GeneratedTestSchema, { ...g, confidence_score: 70 })).toBe(false);
  });
  it('healing pattern', () => {
    const h = {
      id: id(), project_id: null, pattern_type: 'selector_renamed', original_selector: '#a', healed_selector: '#b', confidence: 0.9,
      git_commit: 'abc1234', git_context: null, success_count: 0, failure_count: 0, created_at: now, last_used_at: null,
    };
    expect(ok(HealingPatternSchema, h)).toBe(true);
    expect(ok(HealingPatternSchema, { ...h, git_commit: 'not-a-sha' })).toBe(false);
    expect(parseInput(HealingPatternQuery, { min_confidence: '0.8' }, 'query')).toEqual({ limit: 50, min_confidence: 0.8 });
    expect(paths(HealingPatternQuery, { min_confidence: '2' }, 'query')).toEqual(['min_confidence']);
  });
});
