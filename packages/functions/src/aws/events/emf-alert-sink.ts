import type { Alert, AlertSink } from '@svc/core/events/ports';

/**
 * Alerts on AWS: one CloudWatch Embedded Metric Format line per alert. CloudWatch Logs
 * turns it into the metric `svc/events_parked` (dimension `alert`), which the
 * EventDeadLettered alarm in infra/events.ts watches; the same line is the readable log
 * record of what happened.
 */
export class EmfAlertSink implements AlertSink {
  constructor(
    private readonly write: (line: string) => void = (line) => process.stdout.write(line + '\n'),
    private readonly now: () => number = Date.now,
  ) {}

  async raise(alert: Alert): Promise<void> {
    const metric = alert.name === 'EventDeadLettered' ? 'events_parked' : 'alerts_raised';
    this.write(
      JSON.stringify({
        _aws: {
          Timestamp: this.now(),
          CloudWatchMetrics: [{ Namespace: 'svc', Dimensions: [['alert']], Metrics: [{ Name: metric, Unit: 'Count' }] }],
        },
        alert: alert.name,
        [metric]: 1,
        level: 'ERROR',
        severity: alert.severity,
        message: alert.summary,
        tenant_id: alert.tenant_id,
        details: alert.details,
      }),
    );
  }
}
