import type { VcsProvider } from '../contracts/vcs-integration.ts';

/**
 * A commit status in each host's wire format. GitHub: POST
 * {api}/repos/{owner}/{repo}/statuses/{sha} with a Bearer token, states pending, success,
 * failure, error, and `context` naming the check. GitLab: POST
 * {host}/api/v4/projects/{url-encoded path}/statuses/{sha} with PRIVATE-TOKEN, states
 * pending, running, success, failed, canceled, and `name`. The same name (context) replaces
 * the commit's previous status from svc, so pending is followed by the outcome in place.
 */

/** What svc says about a run, in its own words; each host has its word for it (stateFor). */
export type RunVerdict = 'running' | 'passed' | 'failed' | 'errored' | 'cancelled';

const states: Record<VcsProvider, Record<RunVerdict, string>> = {
  github: { running: 'pending', passed: 'success', failed: 'failure', errored: 'error', cancelled: 'error' },
  // GitLab has no error state: a run that failed as a whole is failed, a cancelled one canceled.
  gitlab: { running: 'running', passed: 'success', failed: 'failed', errored: 'failed', cancelled: 'canceled' },
};

export const stateFor = (provider: VcsProvider, verdict: RunVerdict): string => states[provider][verdict];

export const defaultApiUrl: Record<VcsProvider, string> = { github: 'https://api.github.com', gitlab: 'https://gitlab.com' };

/** GitHub refuses a description above 140 characters; GitLab takes the same, so both get it. */
export const MAX_DESCRIPTION = 140;

export function shortDescription(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= MAX_DESCRIPTION ? flat : `${flat.slice(0, MAX_DESCRIPTION - 1)}…`;
}

export interface CommitStatus {
  provider: VcsProvider;
  /** null: the host's public API (defaultApiUrl). */
  apiUrl: string | null;
  repository: string;
  sha: string;
  token: string;
  state: string;
  description: string;
  context: string;
  targetUrl?: string;
}

/** The request that sets one commit status: URL, headers (with the token) and JSON body. */
export function commitStatusRequest(s: CommitStatus): { url: string; headers: Record<string, string>; body: string } {
  const base = (s.apiUrl ?? defaultApiUrl[s.provider]).replace(/\/+$/, '');
  const sha = encodeURIComponent(s.sha);
  const target = s.targetUrl ? { target_url: s.targetUrl } : {};
  if (s.provider === 'github') {
    const [owner, repo] = s.repository.split('/').map(encodeURIComponent);
    return {
      url: `${base}/repos/${owner}/${repo}/statuses/${sha}`,
      headers: { authorization: `Bearer ${s.token}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', 'user-agent': 'svc' },
      body: JSON.stringify({ state: s.state, ...target, description: s.description, context: s.context }),
    };
  }
  return {
    url: `${base}/api/v4/projects/${encodeURIComponent(s.repository)}/statuses/${sha}`,
    headers: { 'private-token': s.token, 'user-agent': 'svc' },
    body: JSON.stringify({ state: s.state, name: s.context, ...target, description: s.description }),
  };
}
