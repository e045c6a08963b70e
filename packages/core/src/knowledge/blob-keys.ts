/**
 * Where the knowledge worker's blobs live: the files uploaded with an ingestion (kept only
 * until the worker has analysed them) and the analysis it keeps. Under the organization,
 * so no key crosses tenants.
 */
export const ingestionBlobKeys = {
  files: (orgId: string, ingestionId: string) => `codebase/${orgId}/${ingestionId}/files.json`,
  analysis: (orgId: string, ingestionId: string) => `codebase/${orgId}/${ingestionId}/analysis.json`,
};
