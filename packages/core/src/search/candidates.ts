import type { Store } from '../store/index.ts';
import type { SearchKind } from '../contracts/semantic-search.ts';
import type { TestRecord } from '../store/tests.ts';
import { isTerminalRunStatus, type TestRun } from '../contracts/test-run.ts';
import { resultCaseId } from '../contracts/test-result.ts';
import type { Candidate } from './rank.ts';
import { mapLimited } from '../concurrency.ts';

/**
 * What one search compares (docs/search.md "Limits"). A remote embedder is paid for each
 * text it has not embedded before (OpenAI: one request per 50 texts; Bedrock: one per
 * text), so the candidates of a search are capped and the scans that find them bounded.
 */
export const SEARCH_LIMITS = {
  /** Candidates compared per search with the local embedder, shared between the kinds asked for (newest first). */
  candidates: 600,
  /** The same with a remote embedder (OpenAI, Bedrock): each text it has not embedded yet is paid for, and waited for. */
  remoteCandidates: 200,
  /** Projects read by a search without project_id (newest first). */
  projects: 50,
  /** Latest runs per project whose failed results are searched. */
  runsPerProject: 10,
  /** Newest healing patterns read. */
  heals: 500,
  /** Characters of one candidate's text (longer texts are cut; embedders have input limits). */
  textChars: 4000,
} as const;

/** Result reads in flight at once (one query per run). */
const CONCURRENCY = 8;

export interface Gathered {
  candidates: Candidate[];
  counts: { tests: number; failures: number; heals: number };
  truncated: boolean;
}

/** The organization's candidates of the kinds asked for, in the projects given. */
export async function gatherCandidates(store: Store, orgId: string, projects: { id: string; name: string }[], kinds: SearchKind[], cap: number = SEARCH_LIMITS.candidates): Promise<Gathered> {
  const lists: Record<SearchKind, Candidate[]> = { tests: [], failures: [], heals: [] };
  const testsById = new Map<string, TestRecord>();
  // Failures name their step from the test, so tests are read for either kind.
  if (kinds.includes('tests') || kinds.includes('failures')) {
    for (const p of projects) {
      let cursor: string | undefined;
      do {
        const page = await store.tests.list(orgId, { projectId: p.id, limit: 200, cursor });
        for (const t of page.items) testsById.set(t.id, t);
        cursor = page.next_cursor ?? undefined;
      } while (cursor && testsById.size < cap * 2);
    }
    if (kinds.includes('tests')) lists.tests = [...testsById.values()].sort(newestFirst('updated_at')).map(testCandidate);
  }
  if (kinds.includes('failures')) lists.failures = await failureCandidates(store, orgId, projects, testsById);
  if (kinds.includes('heals')) lists.heals = await healCandidates(store, orgId, new Set(projects.map((p) => p.id)));

  const shares = allot(kinds.map((k) => lists[k].length), cap);
  const kept = kinds.map((k, i) => lists[k].slice(0, shares[i]));
  const candidates = kept.flat().map((c) => ({ ...c, text: c.text.slice(0, SEARCH_LIMITS.textChars) }));
  return {
    candidates,
    counts: { tests: kinds.includes('tests') ? kept[kinds.indexOf('tests')].length : 0, failures: kinds.includes('failures') ? kept[kinds.indexOf('failures')].length : 0, heals: kinds.includes('heals') ? kept[kinds.indexOf('heals')].length : 0 },
    truncated: kinds.some((k, i) => lists[k].length > shares[i]),
  };
}

/** Splits `cap` between lists of these sizes: equal shares, a short list's unused share going to the others. */
export function allot(sizes: number[], cap: number): number[] {
  const shares = sizes.map(() => 0);
  let left = cap;
  let open = sizes.map((_, i) => i);
  while (left > 0 && open.length > 0) {
    const each = Math.max(1, Math.floor(left / open.length));
    for (const i of open) {
      const take = Math.min(each, sizes[i] - shares[i], left);
      shares[i] += take;
      left -= take;
    }
    open = open.filter((i) => shares[i] < sizes[i]);
  }
  return shares;
}

const newestFirst = <K extends string>(key: K) => (a: Record<K, string | null>, b: Record<K, string | null>) => (b[key] ?? '').localeCompare(a[key] ?? '');

function testCandidate(t: TestRecord): Candidate {
  const parts = [
    t.name,
    t.description ?? '',
    t.tags.length ? `tags: ${t.tags.join(', ')}` : '',
    t.steps.length ? `steps: ${t.steps.map(describeStep).join('; ')}` : '',
    t.assertions.length ? `checks: ${t.assertions.map(describeStep).join('; ')}` : '',
  ];
  return { kind: 'test', id: t.id, title: t.name, text: parts.filter(Boolean).join('. '), project_id: t.project_id, links: { test: `/api/tests/${t.id}` } };
}

/**
 * A step or assertion as a line a person would write: its type, then its values in the
 * order written (`click #login`, `fill #email "ada@example.com"`, `url contains /account`).
 * Timeouts and step names' duplicates are left out; nested values are flattened.
 */
export function describeStep(step: unknown): string {
  if (!step || typeof step !== 'object') return String(step ?? '');
  const { type, name, timeout_ms: _t, ...rest } = step as Record<string, unknown>;
  // A value typed into a password (or card, token …) field is left out: the text may go to a remote embedder.
  if ((type === 'fill' || type === 'type') && SECRET_FIELD.test(flat(rest.selector))) rest.value = HIDDEN;
  const values = ordered(rest).map(([k, v]) => (k === 'selector' || k === 'url' || k === 'method' ? flat(v) : `${k.replace(/_/g, ' ')} ${flat(v, k)}`));
  const line = [String(type ?? ''), ...values].filter(Boolean).join(' ');
  return typeof name === 'string' && name ? `${name} (${line})` : line;
}

const HIDDEN = '…';
/** Keys whose values may be credentials: never put into a searchable (and embeddable) text. */
const SECRET_KEY = /pass|secret|token|auth|cookie|api[-_]?key|credential|session|^body$/i;
const SECRET_FIELD = /pass|secret|token|otp|cvv|cvc|card|pin\b|ssn/i;

/** A value as words; under a key that may hold a credential (`auth`, `headers.Authorization`, `password` …) only `…`. */
function flat(v: unknown, key = ''): string {
  if (v === null || v === undefined) return '';
  if (key && SECRET_KEY.test(key) && !(typeof v === 'object' && key === 'headers')) return HIDDEN;
  if (typeof v === 'string') return /\s/.test(v) ? `"${v}"` : v;
  if (typeof v !== 'object') return String(v);
  if (Array.isArray(v)) return v.map((x) => flat(x)).join(', ');
  return ordered(v as Record<string, unknown>).map(([k, x]) => `${k} ${flat(x, k)}`).join(' ');
}

/** Fields in reading order (what, where, then the rest by name): a table may hand an item's keys back in any order. */
const READING_ORDER = ['role', 'name', 'selector', 'method', 'url', 'label', 'text', 'placeholder', 'test_id', 'css', 'xpath', 'value'];
function ordered(o: Record<string, unknown>): [string, unknown][] {
  const rank = (k: string) => (READING_ORDER.includes(k) ? READING_ORDER.indexOf(k) : READING_ORDER.length);
  return Object.entries(o).sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
}

async function latestRuns(store: Store, projectId: string, n: number): Promise<TestRun[]> {
  const runs: TestRun[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.testRuns.listForProject(projectId, Math.max(n, 20), cursor);
    for (const run of page.items) {
      // A run still going may retry a failed test; its failures count once it has finished.
      if (isTerminalRunStatus(run.status)) runs.push(run);
      if (runs.length >= n) return runs;
    }
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return runs;
}

async function failureCandidates(store: Store, orgId: string, projects: { id: string; name: string }[], tests: Map<string, TestRecord>): Promise<Candidate[]> {
  const runs = (await Promise.all(projects.map((p) => latestRuns(store, p.id, SEARCH_LIMITS.runsPerProject)))).flat();
  const out = await mapLimited(runs, CONCURRENCY, async (run) => {
    const results = await store.testRuns.results(orgId, run.id);
    // The last attempt of each test (or parameter set) in the run; a failure a retry fixed is not one.
    const last = new Map<string, (typeof results)[number]>();
    for (const r of results) if ((last.get(resultCaseId(r))?.attempt ?? -1) < r.attempt) last.set(resultCaseId(r), r);
    return [...last.values()].filter((r) => r.status === 'failed').map((r) => {
      const meta = r.metadata as Record<string, unknown>;
      const test = tests.get(r.test_id);
      const name = test?.name ?? (typeof meta.name === 'string' ? meta.name : `test ${r.test_id.slice(0, 8)}`);
      const title = r.parameter_set ? `${name} [${r.parameter_set.name}]` : name;
      const index = typeof meta.failed_step === 'number' ? meta.failed_step : undefined;
      const stepCount = test ? test.steps.length : Array.isArray(meta.steps) ? meta.steps.length : undefined;
      const text = [
        `${title} failed`,
        r.error_message ?? '',
        failedAt(index, stepCount, test),
        typeof meta.failure_kind === 'string' ? `failure kind: ${meta.failure_kind}` : '',
      ].filter(Boolean).join('. ');
      return {
        kind: 'failure' as const, id: r.id, title, text, project_id: run.project_id,
        links: { run: `/api/v1/test/status/${run.id}`, results: `/api/v1/tests/${run.id}/results`, test: `/api/tests/${r.test_id}` },
        created_at: r.created_at,
      };
    }).sort(newestFirst('created_at')).map(({ created_at: _c, ...c }) => c);
  });
  // Newest runs first across projects: run ids are time-ordered.
  return runs.map((r, i) => ({ r, c: out[i] })).sort((a, b) => b.r.created_at.localeCompare(a.r.created_at)).flatMap((x) => x.c);
}

async function healCandidates(store: Store, orgId: string, projectIds: Set<string>): Promise<Candidate[]> {
  const out: Candidate[] = [];
  let cursor: string | undefined;
  let read = 0;
  do {
    const page = await store.healingPatterns.list(orgId, { limit: 200, cursor } as Parameters<Store['healingPatterns']['list']>[1]);
    read += page.items.length;
    for (const p of page.items) {
      // Organization-wide patterns (no project) apply to every project, so they are searched with any.
      if (p.project_id !== null && !projectIds.has(p.project_id)) continue;
      const git = p.git_context as Record<string, unknown> | null;
      const text = [
        `${p.original_selector} healed to ${p.healed_selector}`,
        `${p.pattern_type.replace(/_/g, ' ')} found by ${p.method.replace(/_/g, ' ')}`,
        describeLocator(p.healed_locator),
        git && typeof git.message === 'string' ? `commit: ${git.message}` : '',
        p.reverted_at ? 'reverted' : '',
      ].filter(Boolean).join('. ');
      out.push({
        kind: 'heal', id: p.id, title: `${p.original_selector} → ${p.healed_selector}`, text, project_id: p.project_id,
        links: { patterns: `/api/v1/healing/patterns${p.project_id ? `?project_id=${p.project_id}` : ''}` },
      });
    }
    cursor = page.next_cursor ?? undefined;
  } while (cursor && read < SEARCH_LIMITS.heals);
  return out;
}

/** The element a heal points at, in words, from its structured locator (role and name, label, text …). */
function describeLocator(locator: unknown): string {
  if (!locator || typeof locator !== 'object') return '';
  return `element: ${flat(locator)}`;
}

/**
 * Where a failed result failed, in words. An assertion's failure is at steps.length + its
 * index (failed_step): it is said as an assertion, not as a step the test does not have.
 */
function failedAt(index: number | undefined, stepCount: number | undefined, test: { steps: unknown[]; assertions: unknown[] } | undefined): string {
  if (index === undefined) return '';
  if (stepCount !== undefined && index >= stepCount) {
    const assertion = test?.assertions[index - stepCount];
    return `failed assertion ${index - stepCount + 1}${assertion !== undefined ? `: ${describeStep(assertion as never)}` : ''}`;
  }
  const step = test?.steps[index];
  return step !== undefined ? `failed step ${index + 1}: ${describeStep(step as never)}` : `failed step ${index + 1}`;
}
