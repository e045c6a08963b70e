import { createReadStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { rankPage } from '@svc/core/healing/rank';
import { usageError } from './usage-error.ts';

export const HEAL_HELP = `Usage: svc heal rank --input <file> [--top N]
       svc heal git --repo <path> --selector <selector>   (svc heal git --help)

Ranks the elements of captured pages against stored element fingerprints (the
relocation step of self-healing) and prints one JSON line per case.

Input (JSON):
  { "pages": [ { "id": "p1", "candidates": [Fingerprint, ...] } ],
    "cases": [ { "id": "c1", "page": "p1", "target": Fingerprint } ] }
Output (one line per case, in input order):
  { "id": "c1", "ranked": [ { "index": 3, "score": 0.97, "confidence": 0.99 }, ... ] }
  "index" points into that page's candidates; best first. A case whose page is unknown
  or whose target is unusable gets "ranked": [] and an "error". A heal should be applied
  automatically only when confidence >= 0.8.

Options:
  --input <file>   The input file (UTF-8 JSON; may be tens of MB)
  --top <n>        Entries per case (default 10)

Fingerprint fields and the algorithm: docs/healing.md. Exit code: 0 on success, 2 for
bad usage or malformed input.
`;

/** Inputs past this size are refused rather than exhausting memory. */
const MAX_INPUT_BYTES = 512 * 1024 * 1024;

class InputError extends Error {}

export async function healCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    process.stdout.write(HEAL_HELP);
    return sub === undefined ? 2 : 0;
  }
  if (sub === 'git') {
    // Git-aware mode lives with its engine; loaded on demand like the rest.
    const { healGitCommand } = await import('../healing-git/cli.ts');
    return healGitCommand(rest);
  }
  if (sub !== 'rank') return usage(`unknown subcommand "${sub}"`);
  let values;
  try {
    ({ values } = parseArgs({ args: rest, options: { input: { type: 'string' }, top: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true }));
  } catch (err) {
    return usage((err as Error).message);
  }
  if (values.help) {
    process.stdout.write(HEAL_HELP);
    return 0;
  }
  if (!values.input) return usage('--input is required');
  const top = Number(values.top ?? 10);
  if (!Number.isInteger(top) || top < 1 || top > 100_000) return usage('--top must be a whole number from 1 to 100000');

  let input: ParsedInput;
  try {
    input = validate(await readJson(values.input));
  } catch (err) {
    if (err instanceof InputError) {
      process.stderr.write(`svc heal rank: ${err.message}\n`);
      return 2;
    }
    throw err;
  }

  const out = lineWriter();
  for (const c of input.cases) {
    const page = input.pages.get(c.page);
    if (!page) {
      await out.write({ id: c.id, ranked: [], error: 'unknown page' });
      continue;
    }
    const result = rankPage(c.target, page, { top });
    await out.write({ id: c.id, ranked: result.ranked, ...(result.error ? { error: result.error } : {}), ...(result.notes.length ? { notes: result.notes } : {}) });
  }
  await out.end();
  return 0;
}

const usage = (message: string): number => usageError('heal', message);

/** Reads the file in chunks and decodes it; invalid UTF-8 becomes U+FFFD instead of failing. */
async function readJson(path: string): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of createReadStream(path)) {
      size += (chunk as Buffer).length;
      if (size > MAX_INPUT_BYTES) throw new InputError(`input is larger than ${MAX_INPUT_BYTES / 1024 / 1024} MB`);
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`cannot read --input ${path}: ${(err as Error).message}`);
  }
  const text = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false }).decode(Buffer.concat(chunks));
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InputError(`input is not valid JSON: ${(err as Error).message}`);
  }
}

interface ParsedInput {
  pages: Map<string, unknown[]>;
  cases: { id: string | number; page: string; target: unknown }[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is string | number => (typeof v === 'string' && v.length > 0 && v.length <= 1000) || (typeof v === 'number' && Number.isFinite(v));

/** Checks the top-level shape; the fingerprints themselves are parsed leniently by the ranker. */
function validate(raw: unknown): ParsedInput {
  if (!isRecord(raw)) throw new InputError('input must be a JSON object with "pages" and "cases" arrays');
  if (!Array.isArray(raw.pages)) throw new InputError('"pages" must be an array');
  if (!Array.isArray(raw.cases)) throw new InputError('"cases" must be an array');
  const pages = new Map<string, unknown[]>();
  raw.pages.forEach((p, i) => {
    if (!isRecord(p)) throw new InputError(`pages[${i}] must be an object with "id" and "candidates"`);
    if (!isId(p.id)) throw new InputError(`pages[${i}].id must be a non-empty string`);
    if (!Array.isArray(p.candidates)) throw new InputError(`pages[${i}].candidates must be an array of fingerprints`);
    if (pages.has(String(p.id))) throw new InputError(`pages[${i}].id "${String(p.id)}" is used by an earlier page`);
    pages.set(String(p.id), p.candidates);
  });
  const cases = raw.cases.map((c, i) => {
    if (!isRecord(c)) throw new InputError(`cases[${i}] must be an object with "id", "page" and "target"`);
    if (!isId(c.id)) throw new InputError(`cases[${i}].id must be a non-empty string`);
    if (!isId(c.page)) throw new InputError(`cases[${i}].page must be the id of a page`);
    if (!('target' in c)) throw new InputError(`cases[${i}].target is missing`);
    return { id: c.id, page: String(c.page), target: c.target };
  });
  return { pages, cases };
}

/** JSON lines to stdout, waiting for the pipe to drain so huge outputs do not pile up in memory. */
function lineWriter() {
  let buffer = '';
  const flush = () =>
    new Promise<void>((resolve) => {
      const data = buffer;
      buffer = '';
      if (!data || process.stdout.write(data)) resolve();
      else process.stdout.once('drain', resolve);
    });
  return {
    async write(line: unknown) {
      buffer += `${JSON.stringify(line)}\n`;
      if (buffer.length > 64 * 1024) await flush();
    },
    end: flush,
  };
}
