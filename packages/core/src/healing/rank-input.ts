/**
 * The evaluation contract of `svc heal rank`: pages of candidate fingerprints, and cases
 * that each name a page and carry the target's stored fingerprint. Other tools write this
 * format; keep it stable.
 */
import type { Fingerprint } from '../contracts/fingerprint.ts';

export interface RankPage {
  id: string;
  candidates: Fingerprint[];
}

export interface RankCase {
  id: string;
  page: string;
  target: Fingerprint;
}

export interface RankInput {
  pages: RankPage[];
  cases: RankCase[];
}
