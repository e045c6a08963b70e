import type { Logger } from '@svc/core/ports/logger';
import type { Alert, AlertSink } from '@svc/core/events/ports';
import type { ServiceMetrics } from '@svc/core/telemetry/service-metrics';

/**
 * Alerts raised by the service itself (a parked dead letter): an error log line for
 * whoever reads the logs, svc_alerts_raised_total for Prometheus alerting, and the
 * last alerts in memory for the dashboard's operator view.
 */
export class LogAlertSink implements AlertSink {
  private readonly last: (Alert & { raised_at: string })[] = [];

  constructor(
    private readonly logger: Logger,
    private readonly metrics?: ServiceMetrics,
    private readonly keep = 100,
  ) {}

  async raise(alert: Alert): Promise<void> {
    this.logger.error(`ALERT ${alert.name}: ${alert.summary}`, { alert: alert.name, severity: alert.severity, tenant_id: alert.tenant_id, ...alert.details });
    this.metrics?.alertsRaised.inc({ alert: alert.name, severity: alert.severity });
    this.last.push({ ...alert, raised_at: new Date().toISOString() });
    if (this.last.length > this.keep) this.last.shift();
  }

  /** Alerts raised so far (newest last). */
  recent(): readonly (Alert & { raised_at: string })[] {
    return this.last;
  }
}
