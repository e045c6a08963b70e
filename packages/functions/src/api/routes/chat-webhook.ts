import { z } from 'zod';
import type { Hono } from 'hono';
import { SlackCommandAnswer } from '@svc/core/contracts/chat-integration';
import { chatCommandService, type StartChatRun } from '@svc/core/services/chat-commands';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { runGraphOf, type RunGraphAppDeps } from './runs.ts';
import { chatRunStarter } from '../../run-graph/chat-runs.ts';

/** A slash command is a short form (Slack caps the text at a few thousand characters); nothing larger is one. */
export const CHAT_WEBHOOK_MAX_BYTES = 64 * 1024;

/** The form Slack posts, for the OpenAPI document; the handler reads the raw bytes itself (the signature is over them). */
const SlashCommandForm = z
  .looseObject({
    team_id: z.string(),
    user_id: z.string(),
    command: z.string(),
    text: z.string(),
    response_url: z.string(),
    channel_id: z.string().optional(),
    user_name: z.string().optional(),
  })
  .describe('Slack\'s slash command payload, application/x-www-form-urlencoded as Slack sends it');

/**
 * POST /webhooks/chat: Slack slash commands (docs/chatops.md). Public: no session, API key
 * or organization header — the signature (X-Slack-Signature over the timestamp and the raw
 * body) is the credential, and it names the integration. Answers 200 with an ephemeral
 * message for every verified command, including refusals: Slack shows the person nothing
 * useful for any other status.
 */
export function chatWebhookRoutes(app: Hono<ApiEnv>, deps: RunGraphAppDeps, registry: RouteDef[]) {
  const commands = chatCommandService({ store: deps.store, clock: deps.clock, logger: deps.logger });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/webhooks/chat', tags: ['webhooks'], auth: 'public', readsOwnBody: true, bodyMediaType: 'application/x-www-form-urlencoded', maxBodyBytes: CHAT_WEBHOOK_MAX_BYTES,
    summary: 'Chat-tool slash commands: a Slack app\'s signed /svc command (X-Slack-Signature, X-Slack-Request-Timestamp) runs a project\'s tests, reports a run\'s status or a project\'s quality score',
    body: SlashCommandForm,
    responses: {
      200: { description: 'the answer, shown only to the person who typed the command; a run\'s outcome is posted later to the command\'s response_url', schema: SlackCommandAnswer },
      400: { description: 'a form without team_id, user_id, command or a valid response_url (the field is named)' },
      401: { description: 'no signature or timestamp, a timestamp more than 5 minutes off, or a signature no integration of the workspace verifies (also the answer for an unknown workspace)' },
      413: { description: 'body above 64 KB' },
      415: { description: 'not application/x-www-form-urlencoded' },
    },
  }, async ({ c }) => {
    const body = new Uint8Array(await c.req.arrayBuffer());
    // The run graph is looked up only when a run starts: status, score and help answer on a server without one.
    const startRun: StartChatRun = (orgId, run) => chatRunStarter(runGraphOf(deps))(orgId, run);
    const { answer, audit } = await commands.receive((name) => c.req.header(name), body, startRun);
    c.set('audit', audit);
    return c.json(SlackCommandAnswer.parse(answer), 200);
  });
}
