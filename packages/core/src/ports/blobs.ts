/** Artifacts (screenshots, traces, reports, baselines): S3 on AWS, a folder locally. */
export interface Blobs {
  put(key: string, body: Uint8Array | string, contentType?: string): Promise<void>;
  /** undefined when absent. */
  get(key: string): Promise<{ body: Uint8Array; contentType?: string } | undefined>;
  delete(key: string): Promise<void>;
  list(prefix: string): Promise<string[]>;
}
