/**
 * The spec's alert rules, written once: as Prometheus alerting rules (for teams that
 * scrape /metrics) and with the CloudWatch alarm that stands in for each on AWS
 * (infra/events.ts declares those from this list). docs/events.md renders both.
 */
import { consumerRoutes, type ConsumerName } from '../events/routing.ts';

export interface AlertRule {
  name: string;
  severity: 'critical' | 'warning';
  /** How long the condition must hold, Prometheus duration. */
  for: string;
  /** PromQL over the /metrics series. */
  expr: string;
  summary: string;
  /**
   * The consumer the rule watches, when it watches one: the rule is rendered only once that
   * consumer is implemented (the routing table), as infra declares its alarm only then — a
   * worker that does not exist yet is not down.
   */
  requires?: ConsumerName;
  /** The CloudWatch alarm used on AWS: metric, statistic, threshold and evaluation periods of 60 s. */
  cloudwatch: {
    source: 'consumer-queues' | 'dead-letter-queues' | 'knowledge-worker-queue' | 'custom';
    namespace: string;
    metric: string;
    statistic: 'Sum' | 'Maximum' | 'Minimum' | 'Average';
    comparison: 'GreaterThanThreshold' | 'LessThanOrEqualToThreshold' | 'GreaterThanOrEqualToThreshold';
    threshold: number;
    periods: number;
    /** Dimensions of a custom metric (EMF lines carry them). */
    dimensions?: Record<string, string>;
  };
}

export const alertRules: readonly AlertRule[] = [
  {
    name: 'LlmErrorRateHigh', severity: 'critical', for: '5m',
    expr: 'sum(rate(llm_requests_total{outcome="error"}[1m])) > 0.1',
    summary: 'LLM error rate above 0.1 per second for 5 minutes',
    // 0.1/s over a 60 s period is 6 errors per period.
    cloudwatch: { source: 'custom', namespace: 'svc', metric: 'llm_errors', statistic: 'Sum', comparison: 'GreaterThanThreshold', threshold: 6, periods: 5 },
  },
  {
    name: 'KnowledgeWorkerDown', severity: 'critical', for: '2m', requires: 'knowledge-worker',
    expr: '(time() - max(svc_worker_last_heartbeat_seconds{worker="knowledge-worker"})) > 60 or absent(svc_worker_last_heartbeat_seconds{worker="knowledge-worker"})',
    summary: 'Knowledge worker down for 2 minutes',
    // On AWS the worker is queue-driven: "down" is its queue not being drained.
    cloudwatch: { source: 'knowledge-worker-queue', namespace: 'AWS/SQS', metric: 'ApproximateAgeOfOldestMessage', statistic: 'Maximum', comparison: 'GreaterThanThreshold', threshold: 120, periods: 2 },
  },
  {
    name: 'BrowserPoolExhausted', severity: 'warning', for: '5m',
    expr: 'sum(browser_pool_available_sessions) == 0',
    summary: 'Browser pool with zero available sessions for 5 minutes',
    cloudwatch: { source: 'custom', namespace: 'svc', metric: 'browser_pool_available_sessions', statistic: 'Maximum', comparison: 'LessThanOrEqualToThreshold', threshold: 0, periods: 5 },
  },
  {
    name: 'ConsumerLagHigh', severity: 'warning', for: '5m',
    expr: 'max by (consumer) (svc_consumer_lag) > 100',
    summary: 'Consumer lag above 100 for 5 minutes',
    cloudwatch: { source: 'consumer-queues', namespace: 'AWS/SQS', metric: 'ApproximateNumberOfMessagesVisible', statistic: 'Maximum', comparison: 'GreaterThanThreshold', threshold: 100, periods: 5 },
  },
  {
    name: 'DeadLetterBacklog', severity: 'critical', for: '10m',
    expr: 'sum(svc_dlq_depth) > 10',
    summary: 'Dead-letter backlog above 10 for 10 minutes',
    cloudwatch: { source: 'dead-letter-queues', namespace: 'AWS/SQS', metric: 'ApproximateNumberOfMessagesVisible', statistic: 'Maximum', comparison: 'GreaterThanThreshold', threshold: 10, periods: 10 },
  },
  {
    name: 'EventDeadLettered', severity: 'critical', for: '0m',
    expr: 'increase(svc_alerts_raised_total{alert="EventDeadLettered"}[5m]) > 0',
    summary: 'An event exhausted its retries and was parked (raised by the dlq processor)',
    cloudwatch: { source: 'custom', namespace: 'svc', metric: 'events_parked', statistic: 'Sum', comparison: 'GreaterThanOrEqualToThreshold', threshold: 1, periods: 1, dimensions: { alert: 'EventDeadLettered' } },
  },
];

/** The rules that apply to this codebase: not those watching a consumer that is not implemented yet. */
export function applicableRules(rules: readonly AlertRule[] = alertRules, implemented: (c: ConsumerName) => boolean = isImplemented): AlertRule[] {
  return rules.filter((r) => !r.requires || implemented(r.requires));
}

const isImplemented = (c: ConsumerName) => consumerRoutes.some((r) => r.consumer === c && r.implemented);

/** Prometheus alerting-rules file (YAML) for the rules that apply (see applicableRules). */
export function renderPrometheusRules(rules: readonly AlertRule[] = applicableRules()): string {
  const q = (s: string) => `'${s.replace(/'/g, "''")}'`;
  const lines = ['groups:', '  - name: svc', '    rules:'];
  for (const r of rules) {
    lines.push(
      `      - alert: ${r.name}`,
      `        expr: ${q(r.expr)}`,
      `        for: ${r.for}`,
      '        labels:',
      `          severity: ${r.severity}`,
      '        annotations:',
      `          summary: ${q(r.summary)}`,
    );
  }
  return lines.join('\n') + '\n';
}
