import { z } from 'zod';
import { atLeastOneField, atLeastOneFieldParams, IsoDateTime, ListQuery, Uuid } from './common.ts';
import { HttpUrl } from './project.ts';
import { TestOrCaseId } from './parameter-sets.ts';
import { limits } from './limits.ts';
import { FailureEvent } from '../intelligence/generation/from-event.ts';
import { DELIVERY_ID } from '../automation/signature.ts';
import { rotatedSecretFields, secretRotationFields } from './secret-rotation.ts';

/**
 * Automation integrations (spec: inbound webhooks, POST /webhooks/automation,
 * "workflow-automation events"): an n8n workflow, a Zap, a Make scenario, a cron job's
 * curl. svc makes the secret; the tool signs each event with it, and svc signs the run
 * outcomes it posts back with the same one. docs/automation.md.
 */

const Name = z.string().trim().min(1).max(100).describe('What the integration is, e.g. "n8n nightly"');
const ProjectIds = z
  .array(Uuid)
  .max(200)
  .refine((ids) => new Set(ids).size === ids.length, { message: 'a project is listed twice' })
  .describe("The projects its events may act on; empty: every project of the organization");

export const AutomationIntegrationSchema = z.object({
  id: Uuid.describe('Sent as X-Svc-Integration'),
  name: Name,
  project_ids: z.array(Uuid).describe("The projects its events may act on; empty: every project of the organization"),
  enabled: z.boolean().describe('false: its events are refused (401, as for an unknown integration)'),
  secret_hint: z.string().describe("The secret's last four characters (…a1b2), to tell secrets apart"),
  ...secretRotationFields,
  created_by: z.string().nullable(),
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
});
export type AutomationIntegration = z.output<typeof AutomationIntegrationSchema>;

/** An integration as created: its secret, shown this once, and where events go. */
export const AutomationIntegrationCreated = AutomationIntegrationSchema.extend({
  secret: z.string().describe('The signing secret: shown only now (kept sealed); sign events with it and verify callbacks with it'),
  webhook_path: z.literal('/webhooks/automation').describe('Where the tool POSTs events on this server (prefix the address it reaches svc by)'),
});

/** An integration whose secret was just rotated: the new secret, shown this once. */
export const AutomationIntegrationRotated = AutomationIntegrationSchema.extend(rotatedSecretFields);

export const AutomationIntegrationCreateInput = z.strictObject({
  name: Name,
  project_ids: ProjectIds.default([]),
  enabled: z.boolean().default(true),
});
export type AutomationIntegrationCreateInput = z.output<typeof AutomationIntegrationCreateInput>;

export const AutomationIntegrationUpdateInput = z
  .strictObject({
    name: Name.optional(),
    project_ids: ProjectIds.optional(),
    enabled: z.boolean().optional().describe('false pauses it'),
  })
  .refine(atLeastOneField, atLeastOneFieldParams);
export type AutomationIntegrationUpdateInput = z.output<typeof AutomationIntegrationUpdateInput>;

export const AutomationIntegrationListQuery = ListQuery;

/** Every event names its project by id (project_id) or by id or name (project). */
const target = {
  id: z.string().regex(DELIVERY_ID, 'at most 64 letters, digits and . _ : -').optional().describe('The delivery id (or X-Svc-Delivery): a redelivery with the same id gets the first answer and does nothing'),
  project_id: Uuid.optional().describe('The project (or give project)'),
  project: z.string().trim().min(1).max(255).optional().describe('The project by id or name (without regard to case)'),
};
const oneProject = { message: 'give project_id or project', path: ['project_id'] };
const hasProject = (v: { project_id?: string; project?: string }) => v.project_id !== undefined || v.project !== undefined;

export const RunRequestedEvent = z.strictObject({
  event: z.literal('run.requested'),
  ...target,
  test_ids: z.array(TestOrCaseId).min(1).max(1000).optional().describe('Run these tests (default: every test of the project, or those tags and grep pick)'),
  tags: z.array(z.string().trim().min(1).max(100)).max(50).optional().describe('Only tests with at least one of these tags'),
  grep: z.string().min(1).max(200).optional().describe('Only tests whose name matches this regular expression (case-insensitive)'),
  base_url: HttpUrl.optional().describe("The application URL to test (default: the project's app_url)"),
  retries: z.number().int().min(0).max(limits.MAX_TEST_RETRIES).optional().describe('Times a failed test is run again before it counts as failed'),
  callback_url: HttpUrl.optional().describe("Where svc POSTs the run's outcome when it ends, signed like the event"),
});
export type RunRequestedEvent = z.output<typeof RunRequestedEvent>;

export const FailureReportedEvent = z.strictObject({
  event: z.literal('failure.reported'),
  ...target,
  failure: FailureEvent.describe('The production failure: message, stack, url, user_agent, breadcrumbs (as POST /api/test/from-event takes it)'),
  name: z.string().trim().min(1).max(255).optional().describe('Name of the generated test'),
  base_url: z.url().max(8000).optional().describe("URL the generated test is executed against once (default: the project's app_url)"),
  execute: z.boolean().default(true).describe('Execute the generated test once (default true); only a passing test is saved'),
});
export type FailureReportedEvent = z.output<typeof FailureReportedEvent>;

export const automationEvents = ['run.requested', 'failure.reported'] as const;

export const AutomationEvent = z
  .discriminatedUnion('event', [RunRequestedEvent, FailureReportedEvent], { error: `event: expected one of ${automationEvents.join(', ')}` })
  .refine(hasProject, oneProject);
export type AutomationEvent = z.output<typeof AutomationEvent>;

/** Links to a run: where to poll it and its HTML report (absolute with SVC_PUBLIC_URL, else paths on this server). */
export const RunLinks = z.object({ status: z.string(), report: z.string() });

/** What run.requested answers (202), and again on a redelivery (duplicate: true). */
export const RunRequestedAnswer = z.object({
  event: z.literal('run.requested'),
  delivery_id: z.string().nullable(),
  run_id: Uuid,
  project_id: Uuid,
  tests: z.number().int().describe('Tests the run executes'),
  links: RunLinks,
  duplicate: z.boolean().optional().describe('true: this delivery was handled before; this is the first answer'),
});
export type RunRequestedAnswer = z.output<typeof RunRequestedAnswer>;

/** What svc POSTs to a run.requested's callback_url when the run ends. */
export const AutomationRunOutcome = z.object({
  event: z.literal('run.finished'),
  delivery_id: z.string().nullable().describe('The delivery that requested the run'),
  run_id: Uuid,
  project_id: Uuid,
  project: z.string(),
  status: z.string().describe('completed, failed or cancelled'),
  totals: z.object({ total: z.number().int(), passed: z.number().int(), failed: z.number().int(), quarantined: z.number().int().describe('Of the failed, tests in quarantine: their failure does not fail the run') }),
  failed_tests: z.array(z.object({ test_id: z.string(), name: z.string(), error: z.string().nullable() })).describe('At most 10'),
  error: z.string().nullable(),
  started_at: IsoDateTime.nullable(),
  completed_at: IsoDateTime.nullable(),
  links: RunLinks,
  compare: z
    .object({
      base_run_id: Uuid.describe("The project's previous completed or failed run"),
      new_failures: z.number().int().describe('Tests that failed here and passed (or were skipped) there, quarantined ones left out: what this run broke'),
      fixed: z.number().int().describe('Tests that failed there and passed here'),
      still_failing: z.number().int().describe('Tests that failed in both'),
    })
    .optional()
    .describe("Against the project's previous finished run (GET /api/runs/{id}/compare has the cases); absent for a project's first run, a cancelled run, or when it could not be read"),
});
export type AutomationRunOutcome = z.output<typeof AutomationRunOutcome>;
