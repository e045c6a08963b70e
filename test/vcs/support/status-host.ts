import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A source-control host's commit-status API on 127.0.0.1, speaking each host's wire format
 * as their REST docs describe it. GitHub ("Create a commit status"): POST
 * /repos/{owner}/{repo}/statuses/{sha}, `Authorization: Bearer`, states pending, success,
 * failure, error, 201 with the status; 401 "Bad credentials"; 422 "Validation Failed".
 * GitLab ("Set the pipeline status of a commit"): POST /api/v4/projects/{url-encoded
 * path}/statuses/{sha}, `PRIVATE-TOKEN`, states pending, running, success, failed,
 * canceled, 201; 401 "401 Unauthorized"; 400 for a bad state. Anything else is 404. Answers
 * can be scripted (`answerNext(500, 201)`): each request takes the next one.
 */

export interface StatusRequest {
  host: 'github' | 'gitlab';
  path: string;
  /** The repository as the path names it (GitLab: decoded). */
  repository: string;
  sha: string;
  headers: IncomingHttpHeaders;
  body: Record<string, any>;
  answered: number;
}

const githubStates = ['pending', 'success', 'failure', 'error'];
const gitlabStates = ['pending', 'running', 'success', 'failed', 'canceled'];
const GITHUB = /^\/repos\/([^/]+)\/([^/]+)\/statuses\/([0-9a-f]{40})$/;
const GITLAB = /^\/api\/v4\/projects\/([^/]+)\/statuses\/([0-9a-f]{40})$/;

export async function startStatusHost(tokens: { github: string; gitlab: string }) {
  const received: StatusRequest[] = [];
  const script: number[] = [];
  let nextId = 1;

  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
        return status;
      };
      const github = GITHUB.exec(path);
      const gitlab = GITLAB.exec(path);
      if (req.method !== 'POST' || (!github && !gitlab)) return void reply(404, { message: 'Not Found' });
      let body: Record<string, any> = {};
      try {
        body = JSON.parse(raw);
      } catch {
        return void reply(400, { message: 'Problems parsing JSON' });
      }
      const scripted = script.shift();
      let answered: number;
      if (github) {
        const authorized = req.headers.authorization === `Bearer ${tokens.github}`;
        if (scripted) answered = reply(scripted, scripted === 401 ? { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' } : { message: 'Server Error' });
        else if (!authorized) answered = reply(401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' });
        else if (!githubStates.includes(body.state) || (body.description ?? '').length > 140) answered = reply(422, { message: 'Validation Failed', errors: [{ resource: 'Status', code: 'custom', field: 'state' }] });
        else answered = reply(201, { url: `https://api.github.com${path}`, id: nextId++, state: body.state, description: body.description ?? null, target_url: body.target_url ?? null, context: body.context ?? 'default', created_at: new Date().toISOString() });
        received.push({ host: 'github', path, repository: `${github[1]}/${github[2]}`, sha: github[3], headers: req.headers, body, answered });
        return;
      }
      const [, project, sha] = gitlab!;
      const authorized = req.headers['private-token'] === tokens.gitlab;
      if (scripted) answered = reply(scripted, { message: scripted === 401 ? '401 Unauthorized' : '500 Internal Server Error' });
      else if (!authorized) answered = reply(401, { message: '401 Unauthorized' });
      else if (!gitlabStates.includes(body.state)) answered = reply(400, { error: 'state does not have a valid value' });
      else answered = reply(201, { id: nextId++, sha, ref: null, status: body.state, name: body.name ?? 'default', target_url: body.target_url ?? null, description: body.description ?? null, created_at: new Date().toISOString() });
      received.push({ host: 'gitlab', path, repository: decodeURIComponent(project), sha, headers: req.headers, body, answered });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    /** The statuses set on one commit, in order. */
    of: (sha: string) => received.filter((r) => r.sha === sha),
    /** The next requests get these answers, one each (then the normal ones). */
    answerNext: (...statuses: number[]) => void script.push(...statuses),
    async stop() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export type StatusHost = Awaited<ReturnType<typeof startStatusHost>>;
