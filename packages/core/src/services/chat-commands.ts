import { randomUUID } from 'node:crypto';
import { AppError } from '../errors.ts';
import type { Clock } from '../ports/clock.ts';
import type { Logger } from '../ports/logger.ts';
import type { Store } from '../store/index.ts';
import type { StoredChatIntegration } from '../store/chat-integrations.ts';
import type { Project } from '../contracts/project.ts';
import { CoverageQuery } from '../contracts/insights.ts';
import type { SlackCommandAnswer } from '../contracts/chat-integration.ts';
import { parseCommand, usage, type ChatCommand } from '../chatops/command.ts';
import { readSlackCommand, verifySlackSignature, type SlackCommandRequest } from '../chatops/slack-request.ts';
import { ephemeral, runStartedText, scoreText, statusText } from '../chatops/messages.ts';
import { insightsService } from './insights.ts';
import { projectTestsToRun } from './project-tests.ts';
import { projectByRef } from './project-ref.ts';

/** What a chat command asks the run graph for. */
export interface ChatRunRequest {
  project_id: string;
  test_ids: string[];
  /** `chat-<integration id>-<uuid>`: the outcome's reply is recorded under it before the run exists. */
  thread_id: string;
  app_url?: string;
}

/** Starts a run (the run graph's start, with trigger "chat"); returns its id. */
export type StartChatRun = (orgId: string, request: ChatRunRequest) => Promise<{ id: string }>;

/** What the route writes to the audit log: every command a verified integration received, with the Slack user. */
export interface ChatAuditNote {
  organizationId: string;
  userId: string;
  action: string;
  resource: string;
  metadata: Record<string, unknown>;
}

export interface ChatCommandReceipt {
  answer: SlackCommandAnswer;
  audit: ChatAuditNote;
}

/** Slack: "you can use a response_url up to five times within 30 minutes". */
export const RESPONSE_URL_VALID_MS = 30 * 60 * 1000;

const REJECTED = 'the signature does not match: no chat integration of this Slack workspace has the signing secret it was made with (check the signing secret and the workspace id on the integration)';

/** The answer a command gets, and how it ended for the audit log. */
interface Handled {
  answer: SlackCommandAnswer;
  outcome: 'answered' | 'started' | 'refused' | 'failed';
  runId?: string;
  projectId?: string;
}

/**
 * Inbound slash commands (POST /webhooks/chat, docs/chatops.md): find the integrations of
 * the command's workspace (and those taking any), keep the one whose signing secret made
 * the signature, check the user, then run, report or score — answering within Slack's
 * three seconds with a message only the person sees. A run's outcome is posted later, to
 * the command's response_url, by chatReplyService through the run's finish hook.
 */
export function chatCommandService({ store, clock, logger }: { store: Store; clock: Clock; logger?: Logger }) {
  const insights = insightsService({ store, clock });

  /** A secret that does not open verifies nothing (logged, never the value), so another organization's integration still works. */
  async function verifies(c: { organizationId: string; integration: StoredChatIntegration }, request: SlackCommandRequest, body: Uint8Array): Promise<boolean> {
    try {
      const { signing_secret: secret } = await store.chatIntegrations.secrets(c.organizationId, c.integration);
      return verifySlackSignature(secret, request, body);
    } catch (err) {
      logger?.error("a chat integration's signing secret could not be opened", { organization_id: c.organizationId, integration_id: c.integration.id, error: (err as Error).message });
      return false;
    }
  }

  /** A project by id or by name (without regard to case); none named: the integration's default project. */
  async function projectOf(orgId: string, integration: StoredChatIntegration, ref: string | undefined): Promise<Project> {
    if (!ref) {
      const project = await store.projects.get(orgId, integration.project_id);
      if (!project) throw new AppError('NOT_FOUND', 'the default project of this integration no longer exists: an admin can set another (PATCH project_id)');
      return project;
    }
    const found = await projectByRef(store, orgId, ref);
    if (found) return found;
    throw new AppError('NOT_FOUND', `no project named "${ref}" in this organization`);
  }

  async function run(orgId: string, integration: StoredChatIntegration, request: SlackCommandRequest, command: Extract<ChatCommand, { kind: 'run' }>, startRun: StartChatRun): Promise<Handled> {
    const project = await projectOf(orgId, integration, command.project);
    const testIds = await projectTestsToRun(store, orgId, project.id, command.tags);
    const threadId = `chat-${integration.id}-${randomUUID()}`;
    // Where the outcome goes is recorded before the run exists, so a run that ends at once still finds it.
    await store.chatReplies.record(orgId, {
      thread_id: threadId,
      integration_id: integration.id,
      user_id: request.user_id,
      channel_id: request.channel_id,
      valid_until: new Date(clock.now().getTime() + RESPONSE_URL_VALID_MS).toISOString(),
      response_url: request.response_url,
    });
    const started = await startRun(orgId, { project_id: project.id, test_ids: testIds, thread_id: threadId, ...(command.url ? { app_url: command.url } : {}) });
    const text = runStartedText({ runId: started.id, project: project.name, tests: testIds.length, tags: command.tags, url: command.url });
    return { answer: ephemeral(text), outcome: 'started', runId: started.id, projectId: project.id };
  }

  async function status(orgId: string, integration: StoredChatIntegration, runId: string | undefined): Promise<Handled> {
    const found = runId ? await store.testRuns.get(orgId, runId) : (await store.testRuns.listForProject(integration.project_id, 1)).items[0];
    if (!found) return { answer: ephemeral(runId ? `No run ${runId} in this organization.` : 'The default project has no runs yet: start one with `run`.'), outcome: 'failed' };
    const project = await store.projects.get(orgId, found.project_id);
    return { answer: ephemeral(statusText(found, project?.name ?? found.project_id)), outcome: 'answered', runId: found.id, projectId: found.project_id };
  }

  async function score(orgId: string, integration: StoredChatIntegration, ref: string | undefined): Promise<Handled> {
    const project = await projectOf(orgId, integration, ref);
    const result = await insights.qualityScore(orgId, CoverageQuery.parse({ project_id: project.id }));
    return { answer: ephemeral(scoreText(result, project.name)), outcome: 'answered', projectId: project.id };
  }

  async function handle(orgId: string, integration: StoredChatIntegration, request: SlackCommandRequest, command: ChatCommand, startRun: StartChatRun): Promise<Handled> {
    if (!integration.enabled) return { answer: ephemeral("svc's slash commands are paused for this workspace (an admin can resume them)."), outcome: 'refused' };
    if (integration.allowed_user_ids.length && !integration.allowed_user_ids.includes(request.user_id)) {
      return { answer: ephemeral(`You are not allowed to use ${request.command}: ask an svc admin to add your Slack user id (${request.user_id}) to the integration.`), outcome: 'refused' };
    }
    try {
      switch (command.kind) {
        case 'run':
          return await run(orgId, integration, request, command, startRun);
        case 'status':
          return await status(orgId, integration, command.runId);
        case 'score':
          return await score(orgId, integration, command.project);
        case 'invalid':
          return { answer: ephemeral(`${command.message}.\n${usage(request.command)}`), outcome: 'failed' };
        case 'help':
          return { answer: ephemeral(`${command.unknown ? `Unknown command \`${command.unknown}\`.\n` : ''}${usage(request.command)}`), outcome: 'answered' };
      }
    } catch (err) {
      // What svc refuses (no such project, no tests with the tags) is said to the person; anything else is a 500 and logged.
      if (err instanceof AppError && err.status < 500) return { answer: ephemeral(`${request.command} ${command.kind}: ${err.message}`), outcome: 'failed' };
      throw err;
    }
  }

  return {
    /**
     * Handles one slash command. Throws only for what is not a verified command: no or a
     * stale signature, a signature no integration of the workspace verifies (401, the
     * same for an unknown workspace), a body that is not a command (400, 415). Everything
     * after verification is answered with a message (Slack shows only 200 answers).
     */
    async receive(header: (name: string) => string | undefined, body: Uint8Array, startRun: StartChatRun): Promise<ChatCommandReceipt> {
      const request = readSlackCommand(header, body, clock.now());
      const candidates = await store.chatIntegrations.candidates('slack', request.team_id);
      // Every candidate is checked (no early exit), so the time taken says nothing either.
      const verified = (await Promise.all(candidates.map(async (c) => ((await verifies(c, request, body)) ? c : undefined)))).filter((c) => c !== undefined);
      // A workspace-bound integration is preferred over one that takes any, should one app's secret be on both.
      const match = verified.find((c) => c.integration.team_id !== null) ?? verified[0];
      if (!match) {
        // The answer does not say which check failed; the log tells an admin setting Slack up (never a secret).
        logger?.warn('a slash command was refused: no chat integration of its workspace verifies its signature', { team_id: request.team_id, candidates: candidates.length });
        throw new AppError('INVALID_SIGNATURE', REJECTED);
      }

      const { organizationId: orgId, integration } = match;
      const command = parseCommand(request.text);
      const handled = await handle(orgId, integration, request, command, startRun);
      const started = handled.outcome === 'started';
      return {
        answer: handled.answer,
        audit: {
          organizationId: orgId,
          userId: `slack:${request.user_id}`,
          action: started ? 'test_run.start' : `chat_command.${command.kind === 'invalid' ? command.command : command.kind}`,
          resource: handled.runId ? `test_run:${handled.runId}` : `chat_integration:${integration.id}`,
          metadata: {
            ...(started ? { trigger: 'chat' } : {}),
            integration_id: integration.id,
            outcome: handled.outcome,
            command: request.command,
            text: request.text.slice(0, 500),
            team_id: request.team_id,
            slack_user_id: request.user_id,
            ...(request.user_name ? { slack_user_name: request.user_name } : {}),
            ...(request.channel_id ? { channel_id: request.channel_id } : {}),
            ...(handled.projectId ? { project_id: handled.projectId } : {}),
          },
        },
      };
    },
  };
}
