import { z } from 'zod';
import { atLeastOneField, atLeastOneFieldParams, IsoDateTime, ListQuery, Uuid } from './common.ts';
import { HttpUrl } from './project.ts';
import { rotatedSecretFields, secretRotationFields } from './secret-rotation.ts';

/**
 * Source-control integrations (spec: inbound webhooks, POST /webhooks/vcs; "webhook
 * endpoint configuration" is dashboard-only). An integration links one repository on
 * GitHub or GitLab to one project: the host's push and pull-request webhooks, signed with
 * the integration's secret, start runs of the project's tests. docs/vcs-webhooks.md.
 */

export const vcsProviders = ['github', 'gitlab'] as const;
export const VcsProvider = z.enum(vcsProviders).describe('github: X-Hub-Signature-256 (HMAC-SHA256 of the body); gitlab: X-Gitlab-Token (the secret itself)');
export type VcsProvider = z.output<typeof VcsProvider>;

export const vcsTriggerEvents = ['push', 'pull_request'] as const;
export const VcsTriggerEvent = z
  .enum(vcsTriggerEvents)
  .describe('push: a push to a matching branch; pull_request: a pull (merge) request into a matching branch opened, reopened or given new commits');
export type VcsTriggerEvent = z.output<typeof VcsTriggerEvent>;

/** owner/name on GitHub; group[/subgroup…]/name on GitLab. Matched without regard to case, as both hosts do. */
const Repository = z
  .string()
  .trim()
  .max(255)
  .regex(/^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+$/, 'expected owner/name (GitLab: group/…/name)')
  .describe('The repository as the host names it: owner/name on GitHub (repository.full_name), group/…/name on GitLab (project.path_with_namespace)');

/** Characters a branch name (or pattern) cannot hold; run sources (run-source.ts) check branch names with it too. */
export const branchNameRule = /^[^\s~^:?\\[]+$/;

const BranchPattern = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .regex(branchNameRule, 'not a branch name or pattern')
  .describe('A branch name or pattern: * matches within one path segment, ** across segments (release/*, feature/**)');

const Tag = z.string().trim().min(1).max(100);

const Events = z.array(VcsTriggerEvent).min(1).max(vcsTriggerEvents.length).refine((e) => new Set(e).size === e.length, { message: 'an event is listed twice' });
const Branches = z.array(BranchPattern).max(50).describe("Branches whose pushes (and pull requests into which) start runs; empty: the repository's default branch as the payload names it");
const Tags = z.array(Tag).max(50).describe('Run only the tests with at least one of these tags; empty: every test of the project');
const Healing = z.boolean().nullable().describe("Run the self-healer in these runs; null: the project's setting");

export const VcsIntegrationSchema = z.object({
  id: Uuid,
  project_id: Uuid,
  provider: VcsProvider,
  repository: z.string(),
  events: z.array(VcsTriggerEvent),
  branches: z.array(z.string()),
  tags: z.array(z.string()),
  healing_enabled: z.boolean().nullable(),
  enabled: z.boolean().describe('false: deliveries are answered and logged as ignored'),
  api_url: z.string().nullable().describe("The host's API the commit statuses go to; null: https://api.github.com or https://gitlab.com"),
  status_context: z.string().describe('The name of svc\'s commit status on the host (GitHub: context; GitLab: name)'),
  status_token_set: z.boolean().describe('Whether a token for commit statuses is set (the token itself is never returned)'),
  status_token_hint: z.string().nullable().describe('The token\'s kind and last four characters (ghp_…a1b2), to tell tokens apart'),
  ...secretRotationFields,
  created_by: z.string().nullable(),
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
});
export type VcsIntegration = z.output<typeof VcsIntegrationSchema>;

/** An integration as created: with its secret, shown this once. */
export const VcsIntegrationCreated = VcsIntegrationSchema.extend({
  secret: z.string().describe('The webhook secret to paste into the host (GitHub: Secret; GitLab: Secret token); shown only now'),
  webhook_path: z.literal('/webhooks/vcs').describe('Where the host sends its webhooks, on this server'),
});

/** An integration whose secret was just rotated: the new secret, shown this once. */
export const VcsIntegrationRotated = VcsIntegrationSchema.extend(rotatedSecretFields);

/** GitHub names a repository owner/name: one slash. */
function githubHasOneSlash(value: { provider?: string; repository?: string }, ctx: z.RefinementCtx) {
  if (value.provider === 'github' && value.repository && value.repository.split('/').length !== 2) {
    ctx.addIssue({ code: 'custom', path: ['repository'], message: 'a GitHub repository is owner/name' });
  }
}

/**
 * A token goes into one request header as it is: printable ASCII only, so a pasted newline
 * or space cannot split or bend the header.
 */
const StatusToken = z
  .string()
  .trim()
  .min(8, 'too short for a GitHub or GitLab token')
  .max(1000)
  .regex(/^[\x21-\x7e]+$/, 'a token is printable ASCII without spaces')
  .describe('A token of the host allowed to set commit statuses (GitHub: fine-grained "Commit statuses: read and write" or classic repo:status; GitLab: api). Write-only: never returned');

/** Where the host's API is: an admin's setting, like a notification channel's URL; a base, so no query or fragment. */
const ApiUrl = HttpUrl.refine((u) => !/[?#]/.test(u), 'a base URL without query or fragment')
  .refine((u) => !/^[a-z]+:\/\/[^/]*@/i.test(u), 'no user or password in the URL (the token is the credential)')
  .describe('The host\'s API base for commit statuses: GitHub Enterprise https://HOST/api/v3, self-managed GitLab https://HOST (svc adds /api/v4)');

const StatusContext = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[^\x00-\x1f]+$/, 'no control characters')
  .describe('The status\'s name on the host; statuses of the same name replace each other on a commit (default svc)');

export const VcsIntegrationCreateInput = z
  .strictObject({
    project_id: Uuid.describe('Project whose tests the webhooks run'),
    provider: VcsProvider,
    repository: Repository,
    events: Events.default(['push', 'pull_request']).describe('What starts runs (default both)'),
    branches: Branches.default([]),
    tags: Tags.default([]),
    healing_enabled: Healing.default(null),
    enabled: z.boolean().default(true),
    status_token: StatusToken.optional().describe('A token for commit statuses; without one no status is posted. Write-only'),
    api_url: ApiUrl.optional(),
    status_context: StatusContext.default('svc'),
  })
  .superRefine(githubHasOneSlash);
export type VcsIntegrationCreateInput = z.output<typeof VcsIntegrationCreateInput>;

export const VcsIntegrationUpdateInput = z
  .strictObject({
    repository: Repository.optional(),
    events: Events.optional(),
    branches: Branches.optional(),
    tags: Tags.optional(),
    healing_enabled: Healing.optional(),
    enabled: z.boolean().optional().describe('false pauses the integration'),
    status_token: StatusToken.nullable().optional().describe('A new token for commit statuses; null removes it (no more statuses). Write-only'),
    api_url: ApiUrl.nullable().optional().describe("null: the host's public API"),
    status_context: StatusContext.optional(),
  })
  .refine(atLeastOneField, atLeastOneFieldParams);
export type VcsIntegrationUpdateInput = z.output<typeof VcsIntegrationUpdateInput>;

export const VcsIntegrationListQuery = ListQuery.extend({
  project_id: Uuid.optional().describe('Only the integrations of this project'),
});

export const vcsDeliveryOutcomes = ['started', 'ignored', 'duplicate', 'rejected', 'failed'] as const;

export const VcsDeliverySchema = z.object({
  id: Uuid,
  integration_id: Uuid,
  delivery_id: z.string().describe('X-GitHub-Delivery, or GitLab\'s Idempotency-Key / X-Gitlab-Event-UUID'),
  event: z.string().describe('push, pull_request.<action>, ping, or the host\'s event name'),
  outcome: z
    .enum(vcsDeliveryOutcomes)
    .describe('started: a run started; ignored: nothing to run (reason); duplicate: this delivery was handled before; rejected: the signature did not match; failed: the run could not start (reason)'),
  run_id: Uuid.nullable(),
  reason: z.string().nullable(),
  branch: z.string().nullable(),
  commit_sha: z.string().nullable(),
  pusher: z.string().nullable().describe('Who pushed or opened the pull request'),
  pr_number: z.number().int().nullable(),
  changed_files: z.number().int().nullable().describe('How many changed files the run was focused on; null: not known (pull requests, truncated pushes)'),
  created_at: IsoDateTime,
});
export type VcsDelivery = z.output<typeof VcsDeliverySchema>;

/** One commit status svc posted (or tried to) for a run: the host's state word and what the host answered. */
export const VcsStatusLogSchema = z.object({
  id: Uuid,
  integration_id: Uuid,
  run_id: Uuid,
  commit_sha: z.string(),
  state: z.string().describe('As sent to the host: GitHub pending, success, failure, error; GitLab running, success, failed, canceled'),
  description: z.string(),
  status: z.enum(['delivered', 'failed']).describe('delivered: the host answered 2xx'),
  attempts: z.number().int(),
  http_status: z.number().int().nullable().describe('The host\'s last answer (null: no answer)'),
  error: z.string().nullable().describe('The host\'s answer (status and the start of its body) or the network error'),
  created_at: IsoDateTime,
});
export type VcsStatusLog = z.output<typeof VcsStatusLogSchema>;

/** What POST /webhooks/vcs answers (202). */
export const VcsWebhookAnswer = z.object({
  delivery_id: z.string(),
  event: z.string(),
  runs: z.array(z.object({ run_id: Uuid, project_id: Uuid })).describe('Runs this delivery started (they proceed asynchronously)'),
  ignored: z.string().optional().describe('Why nothing ran'),
  duplicate: z.boolean().optional().describe('This delivery id was handled before; runs and ignored are the first answer\'s'),
  message: z.string(),
});
export type VcsWebhookAnswer = z.output<typeof VcsWebhookAnswer>;
