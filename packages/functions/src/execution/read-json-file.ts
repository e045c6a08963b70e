import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { toFieldIssues } from '@svc/core/contracts/parse';

/**
 * A JSON file's value; throws as JSON.parse does. A byte-order mark (Notepad and PowerShell
 * write one) is dropped: it is not JSON, and JSON.parse's message showed it as nothing.
 */
export async function readJsonText(file: string): Promise<unknown> {
  return JSON.parse((await readFile(file, 'utf8')).replace(/^\uFEFF/, ''));
}

/**
 * One JSON file read and validated against `schema`. What is wrong goes to `problems` as
 * `<name>: <field>: <message>` (undefined comes back), so a loader reports every file's
 * problems at once instead of stopping at the first.
 */
export async function readJsonFile<S extends z.ZodType>(file: string, name: string, schema: S, problems: string[]): Promise<z.output<S> | undefined> {
  let data: unknown;
  try {
    data = await readJsonText(file);
  } catch (err) {
    problems.push(`${name}: not valid JSON (${(err as Error).message})`);
    return undefined;
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    for (const issue of toFieldIssues(parsed.error, 'body', data)) problems.push(`${name}: ${issue.path || '(file)'}: ${issue.message}`);
    return undefined;
  }
  return parsed.data;
}
