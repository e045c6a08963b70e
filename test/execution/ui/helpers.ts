import { inflateRawSync } from 'node:zlib';
import type { StepContext } from '@svc/core/execution/types';
import { StepFailure } from '@svc/core/execution/types';
import type { UiSession } from '@svc/core/execution/types';
import type { UiAssertion, UiStep } from '@svc/core/contracts/steps';
import { UiAssertion as UiAssertionSchema, UiStep as UiStepSchema } from '@svc/core/contracts/steps';

export interface LogLine {
  level: string;
  message: string;
}

/** A step context with a deadline ms from now; log lines go to `logs`. */
export function ctx(ms = 15_000, logs: LogLine[] = [], signal: AbortSignal = new AbortController().signal): StepContext {
  return { signal, deadline: Date.now() + ms, log: (level, message) => logs.push({ level, message }) };
}

/** Steps and assertions go through the product's own schemas, as the runner's would. */
export const step = (s: unknown): UiStep => UiStepSchema.parse(s);
export const assertion = (a: unknown): UiAssertion => UiAssertionSchema.parse(a);

/** Runs fn and returns the StepFailure it throws (fails the test if it does not). */
export async function failure(fn: () => Promise<unknown>): Promise<StepFailure> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof StepFailure) return e;
    throw new Error(`expected a StepFailure, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  }
  throw new Error('expected a StepFailure, but the call succeeded');
}

export async function run(session: UiSession, steps: unknown[], ms = 15_000): Promise<void> {
  for (const s of steps) await session.perform(step(s), ctx(ms));
}

/** The entries of a zip archive, from its central directory (stored or deflated). */
export function unzip(zip: Buffer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  let p = zip.readUInt32LE(eocd + 16);
  for (let n = zip.readUInt16LE(eocd + 10); n > 0; n--) {
    const method = zip.readUInt16LE(p + 10);
    const size = zip.readUInt32LE(p + 20);
    const nameLen = zip.readUInt16LE(p + 28);
    const extraLen = zip.readUInt16LE(p + 30);
    const commentLen = zip.readUInt16LE(p + 32);
    const local = zip.readUInt32LE(p + 42);
    const name = zip.toString('utf8', p + 46, p + 46 + nameLen);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + size);
    out.set(name, method === 8 ? inflateRawSync(data) : Buffer.from(data));
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}
