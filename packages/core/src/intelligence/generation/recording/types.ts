import { Step, type TestDefinition } from '../../../contracts/steps.ts';
import { generatedTimeout } from '../timeout.ts';

export type RecordingFormat = 'chrome-recorder' | 'playwright';

/** A part of a recording that did not become a step, and why. */
export interface SkippedPart {
  /** Step index (Chrome Recorder) or 1-based line (Playwright script). */
  at: number;
  what: string;
  reason: string;
}

export interface ConvertedRecording {
  format: RecordingFormat;
  test: TestDefinition;
  skipped: SkippedPart[];
  /** 0..1: share of the recording that became steps, lowered for guessed locators. */
  confidence: number;
}

/** A recording we cannot read at all (unknown format, no steps): the API answers 400. */
export class RecordingError extends Error {
  constructor(
    message: string,
    readonly field = 'recording',
  ) {
    super(message);
    this.name = 'RecordingError';
  }
}

/** A navigation URL from a recording, relative to the recorded origin so it runs against any base URL. */
export function relativeUrl(url: string, origin: string | undefined): string {
  try {
    const u = new URL(url);
    if (origin && u.origin === origin) return `${u.pathname}${u.search}${u.hash}`;
  } catch {
    // not absolute: keep it
  }
  return url;
}

export function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

export const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** "the path is exactly this, on any host": how a recorded absolute URL is checked on another base URL. */
export function pathMatches(url: string, origin: string | undefined): { contains: string } | { matches: string } | { equals: string } {
  const rel = relativeUrl(url, origin);
  if (rel === url) return { equals: url };
  return { matches: `^https?://[^/]+${escapeRegex(rel)}$` };
}

/** The test a recording becomes: a UI test of the recorded steps, tagged as generated. */
export function recordedTest(name: string | undefined, description: string, steps: Step[]): TestDefinition {
  return {
    name: (name ?? 'recorded test').slice(0, 255) || 'recorded test',
    description,
    type: 'ui',
    priority: 'medium',
    tags: ['generated', 'recording'],
    timeout_ms: generatedTimeout(steps),
    parameters: {},
    parameter_sets: [],
    steps,
    assertions: [],
  };
}

/**
 * Why a converted step is not a valid step (an empty URL, selector or key, a negative count
 * or wait, a number where text belongs: a malformed recording), naming the field; undefined
 * when it is valid. Values too long for a test are left to the whole test's check, which
 * answers 400 asking to shorten them. Such a step is listed in skipped rather than stored
 * broken, or turned into a 500 (found by QA).
 */
export function invalidStepReason(step: Step): string | undefined {
  const checked = Step.safeParse(step);
  if (checked.success || checked.error.issues.every((i) => i.code === 'too_big')) return undefined;
  const issue = checked.error.issues.find((i) => i.code !== 'too_big')!;
  const field = issue.path.join('.');
  return `the recorded ${step.type} step is not valid${field ? `: ${field}` : ''}: ${issue.message}`;
}
