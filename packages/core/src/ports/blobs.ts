/** Artifacts (screenshots, traces, reports, baselines): S3 on AWS, a folder locally. */
export interface Blobs {
  put(key: string, body: Uint8Array | string, contentType?: string): Promise<void>;
  /** undefined when absent. */
  get(key: string): Promise<{ body: Uint8Array; contentType?: string } | undefined>;
  delete(key: string): Promise<void>;
  list(prefix: string): Promise<string[]>;
  /** Like list(), with when each object was last written (retention sweeps judge age by it). */
  listModified(prefix: string): Promise<BlobEntry[]>;
}

export interface BlobEntry {
  key: string;
  /** Last write, ISO 8601. */
  modified: string;
}
