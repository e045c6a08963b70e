import { describe, expect, it } from 'vitest';
import { MetricsRegistry } from './metrics.ts';
import { serviceMetrics } from './service-metrics.ts';
import { alertRules, applicableRules, renderPrometheusRules } from './alerts.ts';

describe('metrics registry', () => {
  it('renders counters, gauges and histograms in Prometheus text format', async () => {
    const r = new MetricsRegistry();
    const c = r.counter('jobs_total', 'Jobs done', ['kind']);
    c.inc({ kind: 'a' });
    c.inc({ kind: 'a' }, 2);
    c.inc({ kind: 'say "hi"\n' });
    const g = r.gauge('queue_depth', 'Depth');
    g.set({}, 7);
    const h = r.histogram('latency_seconds', 'Latency', [], [0.1, 1]);
    h.observe({}, 0.05);
    h.observe({}, 0.5);
    h.observe({}, 3);
    const text = await r.render();
    expect(text).toBe(
      [
        '# HELP jobs_total Jobs done',
        '# TYPE jobs_total counter',
        'jobs_total{kind="a"} 3',
        'jobs_total{kind="say \\"hi\\"\\n"} 1',
        '# HELP queue_depth Depth',
        '# TYPE queue_depth gauge',
        'queue_depth 7',
        '# HELP latency_seconds Latency',
        '# TYPE latency_seconds histogram',
        'latency_seconds_bucket{le="0.1"} 1',
        'latency_seconds_bucket{le="1"} 2',
        'latency_seconds_bucket{le="+Inf"} 3',
        'latency_seconds_sum 3.55',
        'latency_seconds_count 3',
        '',
      ].join('\n'),
    );
  });

  it('refuses bad names, unknown labels and decreasing counters', () => {
    const r = new MetricsRegistry();
    expect(() => r.counter('bad-name', 'x')).toThrow(/invalid metric name/);
    const c = r.counter('ok_total', 'x', ['a']);
    expect(() => c.inc({ b: '1' })).toThrow(/unknown label/);
    expect(() => c.inc({}, -1)).toThrow(/only increase/);
    expect(() => r.gauge('ok_total', 'x')).toThrow(/already registered/);
  });

  it('runs collectors at render time and survives a failing one', async () => {
    const r = new MetricsRegistry();
    const g = r.gauge('lag', 'Lag', ['consumer']);
    let n = 0;
    r.addCollector(() => g.set({ consumer: 'api' }, ++n));
    r.addCollector(() => {
      throw new Error('backend down');
    });
    expect(await r.render()).toContain('lag{consumer="api"} 1');
    expect(await r.render()).toContain('lag{consumer="api"} 2');
  });

  it('declares the spec metric names with their types', async () => {
    const m = serviceMetrics();
    m.llmTokens.inc({ model: 'claude' }, 120);
    m.knowledgeEclOperations.inc({ operation: 'extract', status: 'ok' });
    m.knowledgeSearchLatency.observe({ tier: 'cache' }, 0.002);
    m.healingSuggestions.inc({ method: 'cache', applied: 'true' });
    m.browserPoolActiveSessions.set({}, 2);
    const text = await m.registry.render();
    for (const [name, type] of [
      ['knowledge_ecl_operations_total', 'counter'], ['knowledge_search_latency_seconds', 'histogram'], ['healing_suggestions_total', 'counter'],
      ['llm_tokens_total', 'counter'], ['browser_pool_active_sessions', 'gauge'], ['svc_consumer_lag', 'gauge'], ['svc_dlq_depth', 'gauge'],
    ]) expect(text).toContain(`# TYPE ${name} ${type}`);
    expect(text).toContain('llm_tokens_total{model="claude"} 120');
  });
});

describe('alert rules', () => {
  it('covers the five spec alerts with their durations and severities', () => {
    const byName = Object.fromEntries(alertRules.map((r) => [r.name, r]));
    expect(byName.LlmErrorRateHigh).toMatchObject({ severity: 'critical', for: '5m' });
    expect(byName.KnowledgeWorkerDown).toMatchObject({ severity: 'critical', for: '2m' });
    expect(byName.BrowserPoolExhausted).toMatchObject({ severity: 'warning', for: '5m' });
    expect(byName.ConsumerLagHigh).toMatchObject({ severity: 'warning', for: '5m', expr: expect.stringContaining('> 100') });
    expect(byName.DeadLetterBacklog).toMatchObject({ severity: 'critical', for: '10m', expr: expect.stringContaining('> 10') });
    expect(byName.LlmErrorRateHigh.cloudwatch.threshold).toBe(6); // 0.1/s over 60 s periods
  });

  it('renders a Prometheus rules file', () => {
    const yaml = renderPrometheusRules();
    expect(yaml).toContain('      - alert: ConsumerLagHigh\n        expr: \'max by (consumer) (svc_consumer_lag) > 100\'\n        for: 5m');
    expect(yaml.match(/- alert:/g)).toHaveLength(applicableRules().length);
  });

  it('leaves out the rule of a worker that is not implemented: a worker that does not exist is not down', () => {
    // The rule also fires on an absent heartbeat, so for a worker without handlers it would fire for good.
    const withoutKnowledge = renderPrometheusRules(applicableRules(alertRules, (consumer) => consumer !== 'knowledge-worker'));
    expect(withoutKnowledge).not.toContain('KnowledgeWorkerDown');
    // The knowledge worker is implemented: its rule is rendered, absent heartbeat included.
    const rendered = renderPrometheusRules();
    expect(rendered).toContain('KnowledgeWorkerDown');
    expect(rendered).toContain("absent(svc_worker_last_heartbeat_seconds{worker=\"knowledge-worker\"})");
    expect(applicableRules(alertRules, () => true)).toHaveLength(alertRules.length);
  });
});
