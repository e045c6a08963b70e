/** One component's status for /api/v1/health/data-layer. */
export interface ComponentHealth {
  status: 'ok' | 'degraded' | 'down' | 'not_configured';
  version?: string;
  nodes?: number;
  detail?: string;
}

export type HealthCheck = () => Promise<ComponentHealth>;
