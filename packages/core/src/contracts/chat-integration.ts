import { z } from 'zod';
import { atLeastOneField, atLeastOneFieldParams, IsoDateTime, ListQuery, Uuid } from './common.ts';

/**
 * Chat integrations (spec: inbound webhooks, POST /webhooks/chat, "chat-tool slash
 * commands"). An integration is one Slack app's slash command: Slack signs each command
 * with the app's signing secret, and the command runs, reports on or scores the
 * integration's default project. docs/chatops.md.
 */

export const chatProviders = ['slack'] as const;
export const ChatProvider = z.enum(chatProviders).describe('slack: X-Slack-Signature, v0= HMAC-SHA256 of "v0:<timestamp>:<body>" with the app\'s signing secret');
export type ChatProvider = z.output<typeof ChatProvider>;

/** Slack ids (T…, U…, W…) are upper-case letters and digits. */
const SlackId = (what: string, example: string) =>
  z
    .string()
    .trim()
    .regex(/^[A-Z0-9]{2,32}$/, `a Slack ${what} id: upper-case letters and digits, like ${example}`);

const TeamId = SlackId('workspace (team)', 'T0123ABCD').describe('The Slack workspace (team_id) whose commands are taken; null: any workspace the app is installed in');
const AllowedUsers = z
  .array(SlackId('user', 'U0123ABCD'))
  .max(500)
  .refine((ids) => new Set(ids).size === ids.length, { message: 'a user id is listed twice' })
  .describe('Slack user ids allowed to use the commands; empty: everyone in the workspace');

/**
 * A signing secret goes into an HMAC as it is: printable ASCII without spaces, so a pasted
 * newline cannot make every signature fail. Slack's are 32 hex characters.
 */
const SigningSecret = z
  .string()
  .trim()
  .min(16, 'too short for a Slack signing secret (Slack shows 32 characters)')
  .max(200)
  .regex(/^[\x21-\x7e]+$/, 'a signing secret is printable ASCII without spaces')
  .describe("The Slack app's Signing Secret (Basic Information → App Credentials). Write-only: never returned");

export const ChatIntegrationSchema = z.object({
  id: Uuid,
  provider: ChatProvider,
  project_id: Uuid.describe('The default project: what `run`, `status` and `score` mean without a project'),
  team_id: z.string().nullable(),
  allowed_user_ids: z.array(z.string()),
  enabled: z.boolean().describe('false: commands are answered with "paused" and do nothing'),
  signing_secret_set: z.boolean().describe('Whether a signing secret is stored (it is never returned)'),
  signing_secret_hint: z.string().nullable().describe('The secret\'s last four characters (…a1b2), to tell secrets apart'),
  created_by: z.string().nullable(),
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
});
export type ChatIntegration = z.output<typeof ChatIntegrationSchema>;

/** An integration as created: with where Slack sends its commands. */
export const ChatIntegrationCreated = ChatIntegrationSchema.extend({
  request_path: z.literal('/webhooks/chat').describe("The slash command's Request URL on this server (prefix the address Slack reaches svc by)"),
});

export const ChatIntegrationCreateInput = z.strictObject({
  provider: ChatProvider,
  project_id: Uuid.describe('The default project of the commands'),
  signing_secret: SigningSecret,
  team_id: TeamId.nullable().default(null),
  allowed_user_ids: AllowedUsers.default([]),
  enabled: z.boolean().default(true),
});
export type ChatIntegrationCreateInput = z.output<typeof ChatIntegrationCreateInput>;

export const ChatIntegrationUpdateInput = z
  .strictObject({
    project_id: Uuid.optional(),
    signing_secret: SigningSecret.optional().describe('A new signing secret (after "Regenerate" in Slack). Write-only'),
    team_id: TeamId.nullable().optional(),
    allowed_user_ids: AllowedUsers.optional(),
    enabled: z.boolean().optional().describe('false pauses the commands'),
  })
  .refine(atLeastOneField, atLeastOneFieldParams);
export type ChatIntegrationUpdateInput = z.output<typeof ChatIntegrationUpdateInput>;

export const ChatIntegrationListQuery = ListQuery;

/** Slack's message blocks are passed through as they are built (docs: Block Kit). */
const Blocks = z.array(z.record(z.string(), z.unknown()));

/** What POST /webhooks/chat answers (200): a message only the person who typed the command sees. */
export const SlackCommandAnswer = z.object({
  response_type: z.literal('ephemeral'),
  text: z.string().describe('The answer, also the notification text'),
  blocks: Blocks.optional(),
});
export type SlackCommandAnswer = z.output<typeof SlackCommandAnswer>;

/** What svc posts to a command's response_url when its run ends: a message the channel sees. */
export const SlackRunOutcomeMessage = z.object({
  response_type: z.literal('in_channel'),
  replace_original: z.literal(false),
  text: z.string(),
  blocks: Blocks,
});
export type SlackRunOutcomeMessage = z.output<typeof SlackRunOutcomeMessage>;
