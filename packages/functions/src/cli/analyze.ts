import { parseArgs } from 'node:util';
import { analyzeFiles } from '@svc/core/intelligence/analysis/index';
import { readRepository, RepositoryReadError } from '../intelligence/read-repository.ts';
import { skippedOf } from '../intelligence/read-allowed-folder.ts';
import { uploadForAnalysis, uploadReadLimits, type UploadOptions } from './analyze-upload.ts';
import { usageError } from './usage-error.ts';

export const ANALYZE_HELP = `Usage: svc analyze <path> [--json] [--max-files N]
       svc analyze <path> --upload --project <id> [--server <url>] [--commit <sha>] [--wait]

Reads a local folder read-only and lists its testable surfaces: HTTP routes (Express,
Fastify, Hono, Koa, object-style route declarations), Next.js app and pages routes,
React Router routes, OpenAPI operations, forms and elements with test ids or roles.
Secrets are redacted and environment/credential files never opened; personal data is
reported by kind and line only.

Options:
  --json           Print the whole analysis as JSON (with --upload: the ingestion)
  --max-files <n>  Read at most n files (default 5000; 2000 with --upload)

Upload to a server (CI, on every merge): the folder is read here (credential and
environment files are never opened, so never sent) and handed to the server's knowledge
worker, which keeps the analysis for the project's runs and its coverage map.
  --upload              Send the files to the server instead of analysing them here
  --project <id>        The project the codebase belongs to (required with --upload)
  --server <url>        The svc server (env SVC_SERVER_URL, default http://127.0.0.1:4600)
  --organization <id>   Organization to act in, with an access token (env SVC_ORGANIZATION_ID)
  --commit <sha>        The commit the folder is at (kept with the analysis)
  --wait                Wait until the server has analysed it (--timeout seconds, default 300)
The credential comes from the environment: SVC_API_KEY or SVC_TOKEN, else the sign-in
svc login stored for the server.

Exit code: 0 on success (with --upload: queued, or analysed with --wait), 1 the server's
analysis failed or --wait timed out, 2 for bad usage, a path that is not a readable folder,
or a server that refused the upload or could not be reached.
`;

export async function analyzeCommand(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args, allowPositionals: true, strict: true,
      options: {
        json: { type: 'boolean' }, 'max-files': { type: 'string' }, help: { type: 'boolean', short: 'h' },
        upload: { type: 'boolean' }, project: { type: 'string' }, server: { type: 'string' }, organization: { type: 'string' }, commit: { type: 'string' }, wait: { type: 'boolean' }, timeout: { type: 'string' },
      },
    });
  } catch (err) {
    return usage((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(ANALYZE_HELP);
    return 0;
  }
  if (positionals.length !== 1) return usage('give exactly one folder to analyse');
  const maxFiles = values['max-files'] === undefined ? undefined : Number(values['max-files']);
  if (maxFiles !== undefined && (!Number.isInteger(maxFiles) || maxFiles < 1)) return usage('--max-files must be a whole number of at least 1');
  const serverOnly = (['project', 'server', 'organization', 'commit', 'wait', 'timeout'] as const).filter((k) => values[k] !== undefined);
  if (!values.upload && serverOnly.length) return usage(`--${serverOnly[0]} goes with --upload`);
  let upload: UploadOptions | undefined;
  if (values.upload) {
    if (!values.project) return usage('--upload needs --project <id>, the project the codebase belongs to');
    const server = values.server || process.env.SVC_SERVER_URL || 'http://127.0.0.1:4600';
    if (!URL.canParse(server)) return usage(`--server must be a URL, got ${JSON.stringify(server)}`);
    const timeoutSeconds = values.timeout === undefined ? 300 : Number(values.timeout);
    if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1) return usage('--timeout must be a whole number of seconds, at least 1');
    upload = { server, project: values.project, commit: values.commit, organization: values.organization, wait: !!values.wait, timeoutSeconds, json: !!values.json };
  }

  let read;
  try {
    read = await readRepository(positionals[0], { ...(upload && uploadReadLimits), ...(maxFiles && { maxFiles: upload ? Math.min(maxFiles, uploadReadLimits.maxFiles) : maxFiles }) });
  } catch (err) {
    if (err instanceof RepositoryReadError) {
      process.stderr.write(`svc analyze: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  if (upload) return uploadForAnalysis(read, upload, process.env, (line) => process.stdout.write(`${line}\n`), (line) => process.stderr.write(`${line}\n`));
  const analysis = await analyzeFiles(read.files, { skipped: skippedOf(read) });
  if (values.json) {
    process.stdout.write(JSON.stringify({ root: read.root, partial: read.partial, ...analysis }, null, 2) + '\n');
    return 0;
  }
  const s = analysis.summary;
  const lines = [
    `Analysed ${read.root}${read.partial ? ' (partial: a read limit was reached, see skipped)' : ''}`,
    s.text,
    `Languages: ${s.languages.map((l) => `${l.language} ${l.files} files`).join(', ') || 'none'}`,
    `Entry points: ${s.entry_points.join(', ') || 'none found'}`,
    '',
    `Surfaces (${analysis.surfaces.length}):`,
    ...analysis.surfaces.map((x) => `  ${x.method.padEnd(7)} ${x.path.padEnd(40)} ${x.kind.padEnd(17)} ${x.framework.padEnd(13)} ${x.file}:${x.line}`),
    '',
    `Forms (${analysis.forms.length}):`,
    ...analysis.forms.map((f) => `  ${(f.method ?? 'GET').padEnd(7)} ${(f.action ?? '(no action)').padEnd(40)} ${f.fields.length} fields  ${f.file}:${f.line}`),
    `Elements with test ids or roles: ${analysis.elements.length}`,
    `Skipped: ${analysis.skipped.length}${analysis.skipped.length ? ' — ' + summariseReasons(analysis.skipped) : ''}`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}

function summariseReasons(skipped: Array<{ reason: string }>): string {
  const counts = new Map<string, number>();
  for (const s of skipped) {
    const key = s.reason.replace(/\(.*\)$/, '').trim();
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([r, n]) => `${n} ${r}`).join('; ');
}

const usage = (message: string): number => usageError('analyze', message);
