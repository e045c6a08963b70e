import { z } from 'zod';
import { isMetadataUrl } from '../net/metadata-hosts.ts';
import { acceptAliases, atLeastOneField, atLeastOneFieldParams, DisplayName, IsoDateTime, JsonObject, Uuid } from './common.ts';

/** A host name, or an IPv6 address in brackets (an app on `http://[::1]:3000`), as URL.hostname gives them. */
const HOST_OR_IPV6 = new RegExp(`(?:${z.regexes.hostname.source})|^\\[[0-9a-fA-F:.]+\\]$`);

/** An http(s) URL of an application under test. */
export const HttpUrl = z
  .url({ protocol: /^https?$/, hostname: HOST_OR_IPV6 })
  .max(2048)
  // Every URL svc takes is one it will request (an app, a webhook): never a metadata endpoint.
  .refine((u) => !isMetadataUrl(u), { message: 'a link-local / cloud metadata address, which svc never requests (server-side request forgery)' })
  .describe('http or https URL');

/** A repository location: a clone URL (https, ssh, git@host:path) or a local path. */
export const RepoLocation = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .describe('Repository URL (https://, ssh://, git@host:org/repo) or a local filesystem path');

/** A project: one application under test. */
export const ProjectSchema = z.object({
  id: Uuid.describe('Project id'),
  organization_id: Uuid.describe('Owning organization'),
  name: z.string().describe('Project name'),
  app_url: z.string().nullable().describe('Base URL of the application under test, or null'),
  repo_url: z.string().nullable().describe('Repository URL or local path, or null'),
  config: JsonObject.describe('Project configuration (the spec also calls it settings)'),
  created_at: IsoDateTime.describe('When the project was created'),
  updated_at: IsoDateTime.describe('When the project was last changed'),
});
export type Project = z.output<typeof ProjectSchema>;

/** The most a project's config may hold, as JSON: far beyond any settings, far below a store item's 400 KB. */
export const MAX_PROJECT_CONFIG_BYTES = 100_000;

/** A config as a write gives it: an object of at most MAX_PROJECT_CONFIG_BYTES (it is sent with every project read). */
const ConfigInput = JsonObject.refine((config) => new TextEncoder().encode(JSON.stringify(config)).length <= MAX_PROJECT_CONFIG_BYTES, {
  message: `at most ${MAX_PROJECT_CONFIG_BYTES} bytes as JSON`,
});

/** Field aliases for project inputs: the spec names app_url "url" and config "settings" in places. */
export const projectAliases = { url: 'app_url', settings: 'config' } as const;

const ProjectCreateFields = z.strictObject({
  name: DisplayName.describe('Project name, 1-255 characters'),
  app_url: HttpUrl.optional().describe('Base URL of the application under test (alias: url)'),
  repo_url: RepoLocation.optional(),
  config: ConfigInput.optional().describe(`Project configuration (alias: settings), at most ${MAX_PROJECT_CONFIG_BYTES} bytes as JSON`),
});

/** POST /api/v1/projects body. Accepts `url` for `app_url` and `settings` for `config`. */
export const ProjectCreateInput = acceptAliases(ProjectCreateFields, projectAliases);
export type ProjectCreateInput = z.output<typeof ProjectCreateInput>;

const ProjectUpdateFields = z
  .strictObject({
    name: DisplayName.optional().describe('Project name, 1-255 characters'),
    app_url: HttpUrl.nullable().optional().describe('Base URL of the application under test (alias: url); null to clear'),
    repo_url: RepoLocation.nullable().optional().describe('Repository URL or local path; null to clear'),
    config: ConfigInput.optional().describe(`Project configuration, replaced as a whole (alias: settings), at most ${MAX_PROJECT_CONFIG_BYTES} bytes as JSON`),
  })
  .refine(atLeastOneField, atLeastOneFieldParams);

/** PATCH /api/v1/projects/{id} body: any subset of the create fields, at least one. */
export const ProjectUpdateInput = acceptAliases(ProjectUpdateFields, projectAliases);
export type ProjectUpdateInput = z.output<typeof ProjectUpdateInput>;
