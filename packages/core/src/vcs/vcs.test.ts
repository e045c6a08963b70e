import { describe, expect, it } from 'vitest';
import type { VcsIntegration } from '../contracts/vcs-integration.ts';
import { branchMatches, branchSelected } from './branches.ts';
import { decide } from './decide.ts';
import { githubEvent } from './github.ts';
import { gitlabEvent } from './gitlab.ts';
import { readVcsRequest } from './request.ts';
import { githubSignature, verifySignature } from './signature.ts';

const bytes = (s: string) => new TextEncoder().encode(s);
const repo = { full_name: 'acme/shop', default_branch: 'main' };
const commit = (files: { added?: string[]; modified?: string[]; removed?: string[] }) => ({ id: 'a'.repeat(40), added: [], modified: [], removed: [], ...files });

describe('signatures', () => {
  it("matches GitHub's published test vector", () => {
    // docs.github.com "Validating webhook deliveries": secret "It's a Secret to Everybody", payload "Hello, World!".
    expect(githubSignature("It's a Secret to Everybody", bytes('Hello, World!'))).toBe('sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17');
  });

  it('verifies the raw bytes, and nothing else', () => {
    const body = bytes('{"a": 1}');
    const good = githubSignature('s3cret', body);
    expect(verifySignature('github', 's3cret', body, good)).toBe(true);
    expect(verifySignature('github', 's3cret', body, good.toUpperCase().replace('SHA256', 'sha256'))).toBe(true);
    expect(verifySignature('github', 's3cret', bytes('{"a":1}'), good)).toBe(false); // re-serialised JSON is other bytes
    expect(verifySignature('github', 'other', body, good)).toBe(false);
    expect(verifySignature('github', 's3cret', body, good.slice(7))).toBe(false); // without "sha256="
    expect(verifySignature('github', 's3cret', body, 'sha256=')).toBe(false);
    expect(verifySignature('gitlab', 'token', body, 'token')).toBe(true);
    expect(verifySignature('gitlab', 'token', body, 'token ')).toBe(false);
  });
});

describe('headers', () => {
  const headers = (h: Record<string, string>) => (name: string) => h[name];
  it('names the host, the event, the delivery and the proof; refuses what is not a delivery', () => {
    expect(readVcsRequest(headers({ 'x-github-event': 'push', 'x-github-delivery': 'd-1', 'x-hub-signature-256': 'sha256=00', 'content-type': 'application/json' }))).toEqual({ provider: 'github', event: 'push', delivery_id: 'd-1', signature: 'sha256=00' });
    expect(readVcsRequest(headers({ 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': 't', 'x-gitlab-event-uuid': 'u-1', 'idempotency-key': 'k-1', 'content-type': 'application/json' })).delivery_id).toBe('k-1');
    expect(readVcsRequest(headers({ 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': 't', 'content-type': 'application/json' })).delivery_id).toBeNull();
    expect(() => readVcsRequest(headers({ 'content-type': 'application/json' }))).toThrow(/X-GitHub-Event/);
    expect(() => readVcsRequest(headers({ 'x-github-event': 'push', 'x-github-delivery': 'd', 'content-type': 'application/json' }))).toThrow(/X-Hub-Signature-256 is missing/);
    expect(() => readVcsRequest(headers({ 'x-github-event': 'push', 'x-github-delivery': 'd', 'x-hub-signature-256': 's', 'content-type': 'application/x-www-form-urlencoded' }))).toThrow(/content type to application\/json/);
    expect(() => readVcsRequest(headers({ 'x-github-event': 'push', 'x-github-delivery': 'no spaces please', 'x-hub-signature-256': 's', 'content-type': 'application/json' }))).toThrow(/delivery/);
  });
});

describe('branch filters', () => {
  it('matches names, * within a segment and ** across', () => {
    expect(branchMatches('main', 'main')).toBe(true);
    expect(branchMatches('main', 'main2')).toBe(false);
    expect(branchMatches('release/*', 'release/1.2')).toBe(true);
    expect(branchMatches('release/*', 'release/1.2/hotfix')).toBe(false);
    expect(branchMatches('feature/**', 'feature/a/b')).toBe(true);
    expect(branchMatches('v1.*', 'v1x2')).toBe(false); // the dot is a dot
    expect(branchSelected([], 'main', 'main')).toBe(true);
    expect(branchSelected([], 'dev', 'main')).toBe(false);
    expect(branchSelected([], 'main', null)).toBe(false);
  });
});

describe('GitHub payloads', () => {
  it('a push: the union of the commits\' added, modified and removed paths', () => {
    const e = githubEvent('push', { ref: 'refs/heads/main', after: 'b'.repeat(40), commits: [commit({ added: ['a.ts'], modified: ['b.ts'] }), commit({ modified: ['b.ts'], removed: ['c.ts'] })], head_commit: { id: 'b'.repeat(40) }, pusher: { name: 'octocat' }, repository: repo });
    expect(e).toMatchObject({ kind: 'push', branch: 'main', default_branch: 'main', changed_files: ['a.ts', 'b.ts', 'c.ts'], commit_sha: 'b'.repeat(40), pusher: 'octocat', deleted: false });
  });

  it('says when the file list cannot be trusted: no commits, or GitHub\'s 2048-commit cap', () => {
    const none = githubEvent('push', { ref: 'refs/heads/main', commits: [], repository: repo });
    expect(none).toMatchObject({ changed_files: null, unknown_files: expect.stringMatching(/no commits/) });
    const capped = githubEvent('push', { ref: 'refs/heads/main', commits: Array.from({ length: 2048 }, () => commit({ added: ['x'] })), repository: repo });
    expect(capped).toMatchObject({ changed_files: null, unknown_files: expect.stringMatching(/2048/) });
  });

  it('a pull request, a ping and anything else', () => {
    const pr = githubEvent('pull_request', { action: 'synchronize', number: 7, pull_request: { head: { ref: 'feat', sha: 'c'.repeat(40) }, base: { ref: 'main' }, html_url: 'https://github.com/acme/shop/pull/7', user: { login: 'ann' } }, repository: repo });
    expect(pr).toMatchObject({ kind: 'pull_request', name: 'pull_request.synchronize', number: 7, base_ref: 'main', head_ref: 'feat', author: 'ann' });
    expect(githubEvent('ping', { zen: 'Design for failure.', repository: repo }).kind).toBe('ping');
    expect(githubEvent('issues', { action: 'opened', repository: repo })).toEqual({ kind: 'other', name: 'issues', repository: 'acme/shop' });
    expect(() => githubEvent('pull_request', { action: 'opened', repository: repo })).toThrow(/number/);
  });
});

describe('GitLab payloads', () => {
  const project = { path_with_namespace: 'acme/web/shop', default_branch: 'main' };
  it('a push lists at most 20 commits and says how many there were', () => {
    const e = gitlabEvent('Push Hook', { object_kind: 'push', ref: 'refs/heads/main', after: 'd'.repeat(40), checkout_sha: 'd'.repeat(40), user_username: 'jsmith', commits: [commit({ modified: ['README.md'] })], total_commits_count: 1, project });
    expect(e).toMatchObject({ kind: 'push', repository: 'acme/web/shop', changed_files: ['README.md'], pusher: 'jsmith' });
    const cut = gitlabEvent('Push Hook', { ref: 'refs/heads/main', commits: Array.from({ length: 20 }, () => commit({ added: ['x'] })), total_commits_count: 25, project });
    expect(cut).toMatchObject({ changed_files: null, unknown_files: expect.stringMatching(/25 commits/) });
    expect(gitlabEvent('Push Hook', { ref: 'refs/heads/old', after: '0'.repeat(40), checkout_sha: null, commits: [], total_commits_count: 0, project })).toMatchObject({ deleted: true });
  });

  it('a merge request update with new commits is a synchronize', () => {
    const e = gitlabEvent('Merge Request Hook', { object_kind: 'merge_request', user: { username: 'ann' }, object_attributes: { iid: 3, action: 'update', oldrev: 'e'.repeat(40), source_branch: 'feat', target_branch: 'main', last_commit: { id: 'f'.repeat(40) } }, project });
    expect(e).toMatchObject({ kind: 'pull_request', action: 'synchronize', number: 3, base_ref: 'main', head_sha: 'f'.repeat(40) });
    expect(gitlabEvent('Merge Request Hook', { object_attributes: { iid: 3, action: 'update' }, project })).toMatchObject({ action: 'edited' });
  });
});

describe('what a delivery does', () => {
  const integration: VcsIntegration = { id: '01900000-0000-7000-8000-000000000001', project_id: '01900000-0000-7000-8000-000000000002', provider: 'github', repository: 'acme/shop', events: ['push', 'pull_request'], branches: [], tags: [], healing_enabled: null, enabled: true, api_url: null, status_context: 'svc', status_token_set: false, status_token_hint: null, secret_rotated_at: null, previous_secret_expires_at: null, created_by: null, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' };
  const push = (ref: string, extra: Record<string, unknown> = {}) => githubEvent('push', { ref, commits: [commit({ added: ['a.ts'] })], repository: repo, ...extra });
  const pr = (action: string, base = 'main') => githubEvent('pull_request', { action, number: 9, pull_request: { head: { ref: 'feat' }, base: { ref: base } }, repository: repo });

  it('starts runs for the default branch, with the changed files or the pull request', () => {
    expect(decide(integration, push('refs/heads/main'))).toEqual({ run: { changed_files: ['a.ts'] } });
    expect(decide(integration, pr('opened'))).toEqual({ run: { pr_number: 9 } });
    expect(decide(integration, push('refs/heads/main', { commits: [] }))).toEqual({ run: { note: expect.stringMatching(/no changed-file focus/) } });
  });

  it('says why nothing ran', () => {
    expect(decide({ ...integration, enabled: false }, push('refs/heads/main'))).toEqual({ ignored: 'the integration is paused' });
    expect(decide(integration, push('refs/heads/dev'))).toEqual({ ignored: expect.stringMatching(/not the default branch main/) });
    expect(decide({ ...integration, branches: ['release/*'] }, push('refs/heads/main'))).toEqual({ ignored: 'branch main matches none of release/*' });
    expect(decide(integration, push('refs/tags/v1.0'))).toEqual({ ignored: expect.stringMatching(/tags do not start runs/) });
    expect(decide(integration, push('refs/heads/main', { deleted: true }))).toEqual({ ignored: 'the branch was deleted' });
    expect(decide(integration, pr('closed'))).toEqual({ ignored: expect.stringMatching(/pull request closed/) });
    expect(decide(integration, pr('opened', 'dev'))).toEqual({ ignored: expect.stringMatching(/^pull request into branch dev/) });
    expect(decide({ ...integration, events: ['pull_request'] }, push('refs/heads/main'))).toEqual({ ignored: 'push events do not start runs for this integration' });
  });
});
