import { createHmac, randomUUID } from 'node:crypto';

/**
 * GitHub's and GitLab's webhook deliveries as the hosts send them: the payload shapes of
 * docs.github.com "Webhook events and payloads" (push, pull_request, ping) and
 * docs.gitlab.com "Webhook events" (push hook), with their delivery headers, posted as
 * raw bytes and signed over exactly those bytes.
 */

const sha = () => randomUUID().replace(/-/g, '').padEnd(40, '0').slice(0, 40);
const user = { login: 'octocat', id: 583231, node_id: 'MDQ6VXNlcjU4MzIzMQ==', type: 'User', site_admin: false, html_url: 'https://github.com/octocat' };

export function githubRepository(fullName: string, defaultBranch = 'main') {
  const [owner, name] = fullName.split('/');
  return {
    id: 1296269, node_id: 'MDEwOlJlcG9zaXRvcnkxMjk2MjY5', name, full_name: fullName, private: true,
    owner: { name: owner, login: owner, id: 9919, type: 'Organization' },
    html_url: `https://github.com/${fullName}`, url: `https://github.com/${fullName}`, clone_url: `https://github.com/${fullName}.git`,
    default_branch: defaultBranch, master_branch: defaultBranch, visibility: 'private', fork: false,
  };
}

interface Commit { added?: string[]; modified?: string[]; removed?: string[]; message?: string }

/** A push webhook: `ref`, before/after, the commits with their added/modified/removed paths, head_commit, pusher. */
export function githubPush(fullName: string, branch: string, commits: Commit[], opts: { defaultBranch?: string; deleted?: boolean } = {}) {
  const before = sha();
  const listed = commits.map((c, i) => {
    const id = sha();
    return {
      id, tree_id: sha(), distinct: true, message: c.message ?? `change ${i + 1}`, timestamp: '2026-11-22T10:00:00+01:00',
      url: `https://github.com/${fullName}/commit/${id}`,
      author: { name: 'Mona Lisa', email: 'mona@example.com', username: 'octocat' },
      committer: { name: 'GitHub', email: 'noreply@github.com', username: 'web-flow' },
      added: c.added ?? [], removed: c.removed ?? [], modified: c.modified ?? [],
    };
  });
  const after = opts.deleted ? '0'.repeat(40) : (listed.at(-1)?.id ?? sha());
  return {
    ref: `refs/heads/${branch}`, before, after,
    repository: githubRepository(fullName, opts.defaultBranch),
    pusher: { name: 'octocat', email: 'octocat@example.com' }, sender: user,
    created: false, deleted: !!opts.deleted, forced: false, base_ref: null,
    compare: `https://github.com/${fullName}/compare/${before.slice(0, 12)}...${after.slice(0, 12)}`,
    commits: listed, head_commit: listed.at(-1) ?? null,
  };
}

/** A pull_request webhook: action, number, the pull request with head and base. */
export function githubPullRequest(fullName: string, action: string, number: number, head = 'feature/cart', base = 'main') {
  const headSha = sha();
  return {
    action, number,
    pull_request: {
      url: `https://api.github.com/repos/${fullName}/pulls/${number}`, id: 279147437, node_id: 'MDExOlB1bGxSZXF1ZXN0Mjc5MTQ3NDM3',
      html_url: `https://github.com/${fullName}/pull/${number}`, number, state: 'open', locked: false, title: 'Cart keeps items', user, body: null, draft: false,
      created_at: '2026-11-22T09:00:00Z', updated_at: '2026-11-22T09:00:00Z', merged: false, commits: 2, additions: 10, deletions: 2, changed_files: 3,
      head: { label: `acme:${head}`, ref: head, sha: headSha, user, repo: githubRepository(fullName) },
      base: { label: `acme:${base}`, ref: base, sha: sha(), user, repo: githubRepository(fullName) },
    },
    repository: githubRepository(fullName), sender: user,
  };
}

/** The ping GitHub sends when a webhook is created. */
export function githubPing(fullName: string, url: string) {
  return {
    zen: 'Keep it logically awesome.', hook_id: 30,
    hook: { type: 'Repository', id: 30, name: 'web', active: true, events: ['push', 'pull_request'], config: { content_type: 'json', insecure_ssl: '0', url } },
    repository: githubRepository(fullName), sender: user,
  };
}

export interface Delivered {
  status: number;
  body: any;
  text: string;
  deliveryId: string;
}

/** POSTs a GitHub delivery; `secret: null` sends no signature, `signature` overrides it. */
export async function deliverGithub(baseUrl: string, event: string, payload: unknown, opts: { secret: string | null; deliveryId?: string; signature?: string; contentType?: string }): Promise<Delivered> {
  const raw = Buffer.from(JSON.stringify(payload, null, 2)); // GitHub pretty-prints; the signature is over these bytes
  const deliveryId = opts.deliveryId ?? randomUUID();
  const headers: Record<string, string> = {
    'content-type': opts.contentType ?? 'application/json', 'user-agent': 'GitHub-Hookshot/044aadd',
    'x-github-event': event, 'x-github-delivery': deliveryId, 'x-github-hook-id': '30',
    'x-github-hook-installation-target-type': 'repository', 'x-github-hook-installation-target-id': '1296269',
  };
  const signature = opts.signature ?? (opts.secret === null ? undefined : `sha256=${createHmac('sha256', opts.secret).update(raw).digest('hex')}`);
  if (signature) headers['x-hub-signature-256'] = signature;
  const res = await fetch(`${baseUrl}/webhooks/vcs`, { method: 'POST', headers, body: raw });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, text, deliveryId };
}

/** A GitLab push hook (object_kind push), with the project and at most 20 commits as GitLab lists them. */
export function gitlabPush(pathWithNamespace: string, branch: string, commits: Commit[]) {
  const name = pathWithNamespace.split('/').at(-1)!;
  const web = `https://gitlab.example.com/${pathWithNamespace}`;
  const listed = commits.map((c, i) => {
    const id = sha();
    return { id, message: c.message ?? `change ${i + 1}\n`, title: c.message ?? `change ${i + 1}`, timestamp: '2026-11-22T10:00:00+01:00', url: `${web}/-/commit/${id}`, author: { name: 'Jane Smith', email: '[REDACTED]' }, added: c.added ?? [], modified: c.modified ?? [], removed: c.removed ?? [] };
  });
  return {
    object_kind: 'push', event_name: 'push', before: sha(), after: listed.at(-1)?.id ?? sha(), ref: `refs/heads/${branch}`, ref_protected: true,
    checkout_sha: listed.at(-1)?.id ?? null, message: null, user_id: 4, user_name: 'Jane Smith', user_username: 'jsmith', user_email: '', user_avatar: 'https://gitlab.example.com/uploads/user/avatar/4/avatar.png',
    project_id: 15,
    project: { id: 15, name, description: '', web_url: web, avatar_url: null, git_ssh_url: `git@gitlab.example.com:${pathWithNamespace}.git`, git_http_url: `${web}.git`, namespace: pathWithNamespace.split('/')[0], visibility_level: 0, path_with_namespace: pathWithNamespace, default_branch: 'main', ci_config_path: '', homepage: web, url: `git@gitlab.example.com:${pathWithNamespace}.git`, ssh_url: `git@gitlab.example.com:${pathWithNamespace}.git`, http_url: `${web}.git` },
    commits: listed, total_commits_count: listed.length, push_options: {},
    repository: { name, url: `git@gitlab.example.com:${pathWithNamespace}.git`, description: '', homepage: web, git_http_url: `${web}.git`, git_ssh_url: `git@gitlab.example.com:${pathWithNamespace}.git`, visibility_level: 0 },
  };
}

/** POSTs a GitLab delivery with its secret token in X-Gitlab-Token. */
export async function deliverGitlab(baseUrl: string, event: string, payload: unknown, token: string): Promise<Delivered> {
  const deliveryId = randomUUID();
  const res = await fetch(`${baseUrl}/webhooks/vcs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'GitLab/17.6.0', 'x-gitlab-event': event, 'x-gitlab-token': token, 'x-gitlab-event-uuid': randomUUID(), 'x-gitlab-webhook-uuid': randomUUID(), 'x-gitlab-instance': 'https://gitlab.example.com', 'idempotency-key': deliveryId },
    body: JSON.stringify(payload),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, text, deliveryId };
}
