/**
 * Fingerprints from untrusted JSON. Lenient by design: a field of the wrong type is
 * dropped, not fatal, because fingerprints come from other tools and older runners; but
 * nothing unsafe passes — strings are well-formed and truncated, lists and maps capped,
 * numbers finite. The output always satisfies the Fingerprint schema.
 */
import type { Fingerprint } from '../contracts/fingerprint.ts';
import { MAX_FIELD_CHARS, sanitize } from './text.ts';

/** At most this many class names, neighbour texts and attributes are kept per element. */
export const MAX_LIST_ITEMS = 64;

const STRING_FIELDS = [
  'tag', 'id', 'name', 'text', 'role', 'accessibleName', 'testId', 'href', 'alt', 'placeholder', 'type', 'title', 'value', 'ariaLabel', 'xpath', 'idXpath',
] as const;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function str(v: unknown, max = MAX_FIELD_CHARS): string | undefined {
  if (typeof v === 'string') {
    const s = sanitize(v, max);
    return s.trim() ? s : undefined;
  }
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

function num(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

function strList(v: unknown, max = MAX_FIELD_CHARS): string[] | undefined {
  const items = Array.isArray(v) ? v : typeof v === 'string' ? [v] : undefined;
  if (!items) return undefined;
  const out: string[] = [];
  for (const item of items.slice(0, MAX_LIST_ITEMS * 4)) {
    const s = str(item, max);
    if (s !== undefined) out.push(s);
    if (out.length >= MAX_LIST_ITEMS) break;
  }
  return out.length ? out : undefined;
}

/**
 * Parses one fingerprint from unknown JSON. Returns undefined when `raw` is not an object;
 * unknown fields are ignored; `classes` may also be a space-separated string.
 */
export function parseFingerprint(raw: unknown): Fingerprint | undefined {
  if (!isRecord(raw)) return undefined;
  const fp: Fingerprint = {};
  for (const key of STRING_FIELDS) {
    const s = str(raw[key]);
    if (s !== undefined) fp[key] = key === 'tag' ? s.trim().toLowerCase() : s;
  }
  const classes =
    typeof raw.classes === 'string' ? strList(raw.classes.split(/\s+/).filter(Boolean), 200) : strList(raw.classes, 200);
  if (classes) fp.classes = classes;
  const neighborText = strList(raw.neighborText, 500);
  if (neighborText) fp.neighborText = neighborText;
  if (isRecord(raw.attributes)) {
    const attributes: Record<string, string> = {};
    let n = 0;
    for (const [k, v] of Object.entries(raw.attributes)) {
      if (n >= MAX_LIST_ITEMS) break;
      const name = str(k, 100);
      const value = typeof v === 'string' ? sanitize(v, 500) : str(v, 500);
      if (name === undefined || value === undefined) continue;
      attributes[name] = value;
      n++;
    }
    if (n) fp.attributes = attributes;
  }
  if (isRecord(raw.box)) {
    const x = num(raw.box.x);
    const y = num(raw.box.y);
    const width = num(raw.box.width);
    const height = num(raw.box.height);
    if (x !== undefined && y !== undefined && width !== undefined && height !== undefined && width >= 0 && height >= 0) {
      fp.box = { x, y, width, height };
    }
  }
  if (typeof raw.isButton === 'boolean') fp.isButton = raw.isButton;
  if (typeof raw.visible === 'boolean') fp.visible = raw.visible;
  return fp;
}

/** True when a fingerprint carries nothing to compare (an empty object, or only `visible`). */
export function isEmptyFingerprint(fp: Fingerprint): boolean {
  return Object.keys(fp).every((k) => k === 'visible');
}
