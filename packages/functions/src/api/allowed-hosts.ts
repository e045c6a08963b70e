import type { Project } from '@svc/core/store/index';
import { validationFailed } from '@svc/core/errors';
import { allowedOrigins, isAllowed } from '@svc/core/intelligence/discovery/urls';

/**
 * The start URL must be on the project's app_url origin, an origin in the project's
 * config.allowed_hosts or the server's configured list; extra allowed_hosts must be too.
 * Routes that open a URL in the server's browser (discovery, the quality audit) check it
 * here first, so the browser is never pointed at hosts nobody allowed (SSRF).
 */
export function checkHosts(project: Project, runnerHosts: string[], startUrl: string, field: string, extra: string[] = []): void {
  const configured = Array.isArray(project.config?.allowed_hosts) ? (project.config.allowed_hosts as unknown[]).filter((h): h is string => typeof h === 'string') : [];
  const base = project.app_url ? [project.app_url, ...configured, ...runnerHosts] : [...configured, ...runnerHosts];
  if (!base.length) throw validationFailed([{ path: field, message: 'the project has no app_url and no allowed hosts are configured, so no URL may be opened' }]);
  const origins = allowedOrigins(project.app_url ?? (/^https?:/.test(base[0]) ? base[0] : `http://${base[0]}`), base);
  if (!isAllowed(startUrl, origins)) throw validationFailed([{ path: field, message: `${new URL(startUrl).origin} is outside the allowed hosts (${[...origins].join(', ')})` }]);
  extra.forEach((h, i) => {
    const url = /^https?:\/\//i.test(h) ? h : `http://${h}`;
    if (!isAllowed(url, origins)) throw validationFailed([{ path: `allowed_hosts.${i}`, message: `${h} is not allowed by the project or the server` }]);
  });
}
