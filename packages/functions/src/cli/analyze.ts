import { parseArgs } from 'node:util';
import { analyzeFiles } from '@svc/core/intelligence/analysis/index';
import { readRepository, RepositoryReadError } from '../intelligence/read-repository.ts';

export const ANALYZE_HELP = `Usage: svc analyze <path> [--json] [--max-files N]

Reads a local folder read-only and lists its testable surfaces: HTTP routes (Express,
Fastify, Hono, Koa, object-style route declarations), Next.js app and pages routes,
React Router routes, OpenAPI operations, forms and elements with test ids or roles.
Secrets are redacted and environment/credential files never opened; personal data is
reported by kind and line only.

Options:
  --json           Print the whole analysis as JSON
  --max-files <n>  Read at most n files (default 5000)

Exit code: 0 on success, 2 for bad usage or a path that is not a readable folder.
`;

export async function analyzeCommand(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' }, 'max-files': { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true });
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

  let read;
  try {
    read = await readRepository(positionals[0], maxFiles ? { maxFiles } : {});
  } catch (err) {
    if (err instanceof RepositoryReadError) {
      process.stderr.write(`svc analyze: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const skipped = read.skipped_unlisted ? [...read.skipped, { path: '…', reason: `${read.skipped_unlisted} more entries skipped` }] : read.skipped;
  const analysis = await analyzeFiles(read.files, { skipped });
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

function usage(message: string): number {
  process.stderr.write(`svc analyze: ${message}\n\n${ANALYZE_HELP}`);
  return 2;
}
