/**
 * One index of the FileTable: per partition value, entries kept sorted by
 * (sort key, pk, sk) in UTF-8 byte order. Range reads binary-search both ends, so a
 * query costs O(log n + k). Inserts splice into an array (O(partition size) memmove),
 * which is cheap at the sizes a local runtime holds.
 */
import { compareUtf8 } from '../table-rules.ts';

export interface IndexEntry {
  sort: string; // the index's sort-key value
  pk: string; // base-table key: breaks ties so GSI order is total and cursors are exact
  sk: string;
}

export interface RangeBounds {
  prefix?: string;
  from?: string; // inclusive
  to?: string; // inclusive
  /** Exclusive start position (a cursor) in the direction of travel. */
  after?: IndexEntry;
  descending: boolean;
}

export function compareEntries(a: IndexEntry, b: IndexEntry): number {
  return compareUtf8(a.sort, b.sort) || compareUtf8(a.pk, b.pk) || compareUtf8(a.sk, b.sk);
}

/** First index whose entry fails `pred`; `pred` must hold for a prefix of the array only. */
function partitionPoint(entries: IndexEntry[], pred: (e: IndexEntry) => boolean, lo = 0, hi = entries.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pred(entries[mid])) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class SortedIndex {
  private readonly partitions = new Map<string, IndexEntry[]>();

  insert(partition: string, entry: IndexEntry): void {
    let entries = this.partitions.get(partition);
    if (!entries) this.partitions.set(partition, (entries = []));
    entries.splice(partitionPoint(entries, (e) => compareEntries(e, entry) < 0), 0, entry);
  }

  remove(partition: string, entry: IndexEntry): void {
    const entries = this.partitions.get(partition);
    if (!entries) return;
    const i = partitionPoint(entries, (e) => compareEntries(e, entry) < 0);
    if (i < entries.length && compareEntries(entries[i], entry) === 0) entries.splice(i, 1);
    if (entries.length === 0) this.partitions.delete(partition);
  }

  /** Appends without ordering; call sortAll() afterwards. Used to load a snapshot in O(n log n). */
  appendUnsorted(partition: string, entry: IndexEntry): void {
    let entries = this.partitions.get(partition);
    if (!entries) this.partitions.set(partition, (entries = []));
    entries.push(entry);
  }

  sortAll(): void {
    for (const entries of this.partitions.values()) entries.sort(compareEntries);
  }

  /** Entries of one partition within the bounds, in the requested direction. */
  *range(partition: string, b: RangeBounds): Generator<IndexEntry> {
    const entries = this.partitions.get(partition);
    if (!entries) return;
    const { prefix, from, to, after } = b;
    // Lower end: first entry at or above both the range start and the prefix.
    let lo = partitionPoint(
      entries,
      (e) => (from !== undefined && compareUtf8(e.sort, from) < 0) || (prefix !== undefined && compareUtf8(e.sort, prefix) < 0),
    );
    // Upper end: entries starting with the prefix are contiguous in byte order, so
    // "below the prefix or starting with it" holds for a prefix of the array.
    let hi = partitionPoint(
      entries,
      (e) =>
        (to === undefined || compareUtf8(e.sort, to) <= 0) &&
        (prefix === undefined || compareUtf8(e.sort, prefix) < 0 || e.sort.startsWith(prefix)),
      lo,
    );
    if (after && !b.descending) lo = Math.max(lo, partitionPoint(entries, (e) => compareEntries(e, after) <= 0));
    if (after && b.descending) hi = Math.min(hi, partitionPoint(entries, (e) => compareEntries(e, after) < 0));
    // Callers must consume the generator without writing to the index in between.
    if (b.descending) {
      for (let i = hi - 1; i >= lo; i--) yield entries[i];
    } else {
      for (let i = lo; i < hi; i++) yield entries[i];
    }
  }
}
