import { inlineLimits } from '@svc/core/intelligence/analysis/types';
import type { RepositoryRead } from '../intelligence/read-repository.ts';
import { serverCredential, signInAgainHint } from './server-credential.ts';

export interface UploadOptions {
  server: string;
  project: string;
  commit?: string;
  organization?: string;
  wait: boolean;
  timeoutSeconds: number;
  json: boolean;
}

/** The inline upload's limits, so the folder is read no further than the server accepts. */
export const uploadReadLimits = { maxFiles: inlineLimits.maxFiles, maxFileBytes: inlineLimits.maxFileBytes, maxTotalBytes: inlineLimits.maxTotalBytes };

type Ingestion = { id: string; status: 'queued' | 'analyzed' | 'failed'; error: string | null; surface_count: number | null; summary: { text: string } | null; partial: boolean | null };

/**
 * `svc analyze <path> --upload`: hands a folder to a server's knowledge worker (POST
 * /api/analyze with async), e.g. from CI on every merge, so runs on that server (which
 * cannot read this machine's folders) plan against the code. The folder is read here with
 * the same reader as a local analysis: credential and environment files are never opened,
 * so never sent. With --wait it follows the ingestion until the worker has decided.
 * Exit code: 0 queued (or analysed, with --wait), 1 the analysis failed or the wait timed
 * out, 2 the server refused or could not be reached.
 */
export async function uploadForAnalysis(read: RepositoryRead, o: UploadOptions, env: NodeJS.ProcessEnv, out: (line: string) => void, err: (line: string) => void): Promise<number> {
  const base = new URL(o.server);
  const credential = await serverCredential(env, base.origin, o.organization);
  if (typeof credential === 'string') {
    err(`svc analyze: ${credential}`);
    return 2;
  }
  if (!read.files.length) {
    err(`svc analyze: nothing to upload: no readable source files in ${read.root}`);
    return 2;
  }
  const call = async (method: string, path: string, body?: unknown) => {
    let res: Response;
    try {
      res = await fetch(new URL(path, base), { method, headers: { ...(await credential.headers()), 'content-type': 'application/json', accept: 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
    } catch (e) {
      const cause = (e as { cause?: { code?: string } }).cause?.code;
      throw new Error(`cannot reach ${base.origin}: ${(e as Error).message}${cause ? ` (${cause})` : ''}`);
    }
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const message = json?.error?.message ?? (text.slice(0, 300) || res.statusText);
      const issues = (json?.error?.details?.issues ?? []) as Array<{ path: string; message: string }>;
      const hint = res.status === 401 && credential.storedSignIn ? `\n${signInAgainHint(base.origin)}` : '';
      throw new Error(`${method} ${path}: ${res.status} ${message}${issues.map((i) => `\n  ${i.path}: ${i.message}`).join('')}${hint}`);
    }
    return json;
  };

  let ingestion: Ingestion;
  try {
    ingestion = await call('POST', '/api/analyze', { project_id: o.project, files: read.files, async: true, ...(o.commit && { commit_sha: o.commit }) });
  } catch (e) {
    err(`svc analyze: ${(e as Error).message}`);
    return 2;
  }
  const skipped = read.skipped.length + read.skipped_unlisted;
  if (!o.json) out(`Queued ${read.files.length} files of ${read.root} for the knowledge worker (ingestion ${ingestion.id})${skipped ? `; ${skipped} skipped here, never sent` : ''}${read.partial ? '; a read limit was reached, so the analysis will be partial' : ''}`);
  if (o.wait) {
    const deadline = Date.now() + o.timeoutSeconds * 1000;
    try {
      while (ingestion.status === 'queued' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 500));
        ingestion = await call('GET', `/api/analyze/${encodeURIComponent(ingestion.id)}`);
      }
    } catch (e) {
      err(`svc analyze: ${(e as Error).message}`);
      return 2;
    }
  }
  if (o.json) {
    const { analysis: _analysis, ...record } = ingestion as Ingestion & { analysis?: unknown };
    out(JSON.stringify(record, null, 2));
  } else if (ingestion.status === 'analyzed') out(`Analysed: ${ingestion.surface_count} surfaces. ${ingestion.summary?.text ?? ''}`.trim());
  else if (ingestion.status === 'failed') err(`svc analyze: the knowledge worker could not analyse it: ${ingestion.error}`);
  else if (o.wait) err(`svc analyze: still queued after ${o.timeoutSeconds} s (is the server's knowledge worker running?); follow it with GET /api/analyze/${ingestion.id}`);
  if (ingestion.status === 'failed' || (o.wait && ingestion.status === 'queued')) return 1;
  return 0;
}
