/**
 * The runtime calibration set (written by bench/healing-runtime-capture.ts): real-driver
 * fingerprints of generated redesigns of the base pages. `answer` is the index of the
 * element in its page's candidates, or -1 when the redesign removed it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Fingerprint } from '../packages/core/src/contracts/fingerprint.ts';

export const RUNTIME_SET = join(import.meta.dirname, 'healing-runtime-set.json.gz');

export interface RuntimeSet {
  pages: { id: string; candidates: Fingerprint[] }[];
  cases: { id: string; site: string; page: string; target: Fingerprint; answer: number }[];
}

export async function loadRuntimeSet(path = RUNTIME_SET): Promise<RuntimeSet> {
  return JSON.parse(gunzipSync(await readFile(path)).toString('utf8')) as RuntimeSet;
}
