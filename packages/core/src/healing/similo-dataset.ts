/**
 * Converter from the attribute records of the Similo replication package (Nass et al.,
 * "Similarity-based web element localization for robust test automation", TOSEM 2023) to
 * the engine's Fingerprint, and from the dev-set file to the `svc heal rank` input
 * contract. Answers are returned apart from the input and never enter a fingerprint.
 */
import type { Fingerprint } from '../contracts/fingerprint.ts';
import type { RankInput } from './rank-input.ts';

/** A Similo record: every value is a string (numbers included). */
export type SimiloRecord = Record<string, unknown>;

const s = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
const n = (v: unknown): number | undefined => {
  const x = typeof v === 'number' ? v : typeof v === 'string' && v.trim() ? Number(v) : NaN;
  return Number.isFinite(x) ? x : undefined;
};

/** `id("main")/a[1]` and `//*[@id='main']/a[1]` → the runner's form `//*[@id="main"]/a[1]`. */
export function normaliseIdXpath(x: string): string {
  const m = /^(?:id\((?:"([^"]*)"|'([^']*)')\)|\/\/\*\[@id=(?:"([^"]*)"|'([^']*)')\])/.exec(x);
  if (!m) return x;
  const id = m[1] ?? m[2] ?? m[3] ?? m[4] ?? '';
  if (id.includes('"')) return x;
  return `//*[@id="${id}"]${x.slice(m[0].length)}`;
}

/**
 * One Similo record as a Fingerprint: text ← text, else visible_text; classes ← class split
 * on whitespace; idXpath ← idxpath; box ← x/y/width/height; isButton ← is_button (yes/no);
 * neighborText ← neighbor_text_left/right/above/below and neighbor_text; id, name, type,
 * value, href, title, placeholder as they are. area and shape are derived from the box and
 * dropped; option_* are dropped.
 */
export function similoToFingerprint(rec: SimiloRecord): Fingerprint {
  const fp: Fingerprint = {};
  const tag = s(rec.tag);
  if (tag) fp.tag = tag.toLowerCase();
  for (const key of ['id', 'name', 'type', 'value', 'href', 'title', 'placeholder', 'xpath'] as const) {
    const v = s(rec[key]);
    if (v !== undefined) fp[key] = v;
  }
  const text = s(rec.text) ?? s(rec.visible_text);
  if (text !== undefined) fp.text = text.replace(/\s+/g, ' ').trim();
  const classes = s(rec.class)?.split(/\s+/).filter(Boolean);
  if (classes?.length) fp.classes = classes;
  const idXpath = s(rec.idxpath);
  if (idXpath) fp.idXpath = normaliseIdXpath(idXpath);
  const [x, y, width, height] = [n(rec.x), n(rec.y), n(rec.width), n(rec.height)];
  if (x !== undefined && y !== undefined && width !== undefined && height !== undefined) fp.box = { x, y, width, height };
  const button = s(rec.is_button);
  if (button === 'yes' || button === 'no') fp.isButton = button === 'yes';
  const neighbors = ['neighbor_text_left', 'neighbor_text_right', 'neighbor_text_above', 'neighbor_text_below', 'neighbor_text']
    .map((k) => s(rec[k]))
    .filter((v): v is string => v !== undefined);
  if (neighbors.length) fp.neighborText = [...new Set(neighbors)];
  return fp;
}

/** A converted dev set: the rank input, and per case the index of the right candidate. */
export interface ConvertedDataset {
  input: RankInput;
  answers: Map<string, number>;
  /** Case id → app (site) name, for leave-one-site-out evaluation. */
  sites: Map<string, string>;
}

interface DevApp {
  name: string;
  candidates: SimiloRecord[];
  cases: { target: SimiloRecord; answer: number }[];
}

/** Converts `{ apps: [{ name, candidates, cases: [{ target, answer }] }] }` to the contract. */
export function convertSimiloDataset(raw: unknown): ConvertedDataset {
  const apps = (raw as { apps?: unknown })?.apps;
  if (!Array.isArray(apps)) throw new Error('dataset: expected { apps: [...] }');
  const input: RankInput = { pages: [], cases: [] };
  const answers = new Map<string, number>();
  const sites = new Map<string, string>();
  for (const app of apps as DevApp[]) {
    const page = `${app.name}`;
    input.pages.push({ id: page, candidates: app.candidates.map(similoToFingerprint) });
    app.cases.forEach((c, i) => {
      const id = `${page}#${i}`;
      input.cases.push({ id, page, target: similoToFingerprint(c.target) });
      answers.set(id, c.answer);
      sites.set(id, page);
    });
  }
  return { input, answers, sites };
}
