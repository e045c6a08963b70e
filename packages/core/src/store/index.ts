import type { Table } from '../ports/table.ts';
import type { Clock } from '../ports/clock.ts';
import type { SecretCipher } from '../ports/secret-cipher.ts';
import { storeContext } from './context.ts';
import { organizationsRepo } from './organizations.ts';
import { membersRepo } from './members.ts';
import { usersRepo, refreshTokensRepo } from './users.ts';
import { apiKeysRepo } from './api-keys.ts';
import { deviceAuthorizationsRepo } from './device-authorizations.ts';
import { agentGrantsRepo } from './agent-grants.ts';
import { projectsRepo } from './projects.ts';
import { environmentRepo } from './environment.ts';
import { testsRepo } from './tests.ts';
import { auditLogsRepo } from './audit-logs.ts';
import { invitationsRepo } from './invitations.ts';
import { systemSettingsRepo } from './settings.ts';
import { testRunsRepo } from './test-runs.ts';
import { checkpointsRepo } from './checkpoints.ts';
import { generatedTestsRepo } from './generated-tests.ts';
import { discoveryRepo } from './discovery.ts';
import { codebaseIngestionsRepo } from './codebase-ingestions.ts';
import { testTemplatesRepo } from './test-templates.ts';
import { reviewCommentsRepo } from './review-comments.ts';
import { healingPatternsRepo } from './healing-patterns.ts';
import { healingCacheRepo } from './healing-cache.ts';
import { memoryRepo } from './memory.ts';
import { searchVectorsRepo } from './search-vectors.ts';
import { aiUsageRepo } from './ai-usage.ts';
import { chatRepo } from './chat.ts';
import { visualBaselinesRepo } from './visual-baselines.ts';
import { schedulesRepo } from './schedules.ts';
import { flowsRepo } from './flows.ts';
import { notificationsRepo } from './notifications.ts';
import { vcsIntegrationsRepo } from './vcs-integrations.ts';
import { vcsStatusesRepo } from './vcs-statuses.ts';
import { chatIntegrationsRepo } from './chat-integrations.ts';
import { chatRepliesRepo } from './chat-replies.ts';
import { automationIntegrationsRepo } from './automation-integrations.ts';
import { automationCallbacksRepo } from './automation-callbacks.ts';

export interface StoreOptions {
  /** Seals and opens secret attributes (ports/secret-cipher.ts). Without one, writing a secret fails (NOT_CONFIGURED). */
  cipher?: SecretCipher;
}

/** Every repository over one table. */
export function createStore(table: Table, clock: Clock, options: StoreOptions = {}) {
  const ctx = storeContext(table, clock, options.cipher);
  return {
    table,
    organizations: organizationsRepo(ctx),
    members: membersRepo(ctx),
    users: usersRepo(ctx),
    refreshTokens: refreshTokensRepo(ctx),
    apiKeys: apiKeysRepo(ctx),
    deviceAuthorizations: deviceAuthorizationsRepo(ctx),
    agentGrants: agentGrantsRepo(ctx),
    projects: projectsRepo(ctx),
    environment: environmentRepo(ctx),
    tests: testsRepo(ctx),
    auditLogs: auditLogsRepo(ctx),
    invitations: invitationsRepo(ctx),
    settings: systemSettingsRepo(ctx),
    testRuns: testRunsRepo(ctx),
    checkpoints: checkpointsRepo(ctx),
    generatedTests: generatedTestsRepo(ctx),
    discovery: discoveryRepo(ctx),
    codebaseIngestions: codebaseIngestionsRepo(ctx),
    testTemplates: testTemplatesRepo(ctx),
    reviewComments: reviewCommentsRepo(ctx),
    healingPatterns: healingPatternsRepo(ctx),
    healingCache: healingCacheRepo(ctx),
    memory: memoryRepo(ctx),
    searchVectors: searchVectorsRepo(ctx),
    aiUsage: aiUsageRepo(ctx),
    chat: chatRepo(ctx),
    visualBaselines: visualBaselinesRepo(ctx),
    schedules: schedulesRepo(ctx),
    flows: flowsRepo(ctx),
    notifications: notificationsRepo(ctx),
    vcsIntegrations: vcsIntegrationsRepo(ctx),
    vcsStatuses: vcsStatusesRepo(ctx),
    chatIntegrations: chatIntegrationsRepo(ctx),
    chatReplies: chatRepliesRepo(ctx),
    automationIntegrations: automationIntegrationsRepo(ctx),
    automationCallbacks: automationCallbacksRepo(ctx),
  };
}

export type Store = ReturnType<typeof createStore>;
export { keys } from './keys.ts';
export { memberItem, slugify } from './organizations.ts';
export type { Organization, Member, Role } from './organizations.ts';
export type { UserProfile } from './users.ts';
export type { ApiKeyRecord, ApiKeyAuthRecord } from './api-keys.ts';
export type { DeviceAuthorization } from './device-authorizations.ts';
export type { AgentGrant } from './agent-grants.ts';
export type { Project } from './projects.ts';
export type { ProjectEnvironment } from './environment.ts';
export type { TestRecord, NewTest, TestPatch } from './tests.ts';
export type { RevisionAuthor } from './test-revisions.ts';
export type { AuditLog } from './audit-logs.ts';
export type { Invitation } from './invitations.ts';
export type { TestRun, TestResultRecord } from './test-runs.ts';
export type { Page } from './context.ts';
export type { VisualBaselineItem } from './visual-baselines.ts';
