/**
 * Every key of the single table in one place. docs/data-model.md documents the same
 * layout with its access patterns; change both together.
 */
export const keys = {
  organization: (orgId: string) => ({ pk: `ORG#${orgId}`, sk: 'ORG' }),
  orgSlug: (slug: string) => ({ pk: `SLUG#${slug}`, sk: 'SLUG' }),
  member: (orgId: string, userId: string) => ({ pk: `ORG#${orgId}`, sk: `MEMBER#${userId}` }),
  memberByUser: (userId: string) => `USER#${userId}`, // gsi1pk of member items
  profile: (userId: string) => ({ pk: `USER#${userId}`, sk: 'PROFILE' }),
  credential: (userId: string) => ({ pk: `USER#${userId}`, sk: 'CREDENTIAL' }),
  email: (email: string) => ({ pk: `EMAIL#${email.toLowerCase()}`, sk: 'EMAIL' }),
  refreshToken: (hash: string) => ({ pk: `REFRESH#${hash}`, sk: 'REFRESH' }),
  /** An agent's pending sign-in (OAuth device flow), by the hash of its device code. */
  deviceAuthorization: (deviceCodeHash: string) => ({ pk: `DEVICE#${deviceCodeHash}`, sk: 'DEVICE' }),
  /** An agent signed in as a user (device flow), in the user's partition. */
  agentGrant: (userId: string, grantId: string) => ({ pk: `USER#${userId}`, sk: `AGENT#${grantId}` }),
  agentGrantsOf: (userId: string) => `USER#${userId}`, // pk of a user's agent grants (sk prefix AGENT#)
  /** The user code a person types, pointing at its device authorization. */
  deviceUserCode: (userCode: string) => ({ pk: `USERCODE#${userCode}`, sk: 'USERCODE' }),
  apiKey: (orgId: string, keyId: string) => ({ pk: `ORG#${orgId}`, sk: `APIKEY#${keyId}` }),
  apiKeyHash: (hash: string) => ({ pk: `APIKEYHASH#${hash}`, sk: 'APIKEYHASH' }),
  project: (orgId: string, projectId: string) => ({ pk: `ORG#${orgId}`, sk: `PROJECT#${projectId}` }),
  /** A custom test template of an organization; its name (lower case) has a second item keeping names unique. */
  testTemplate: (orgId: string, templateId: string) => ({ pk: `ORG#${orgId}`, sk: `TEMPLATE#${templateId}` }),
  testTemplateName: (orgId: string, name: string) => ({ pk: `ORG#${orgId}`, sk: `TEMPLATENAME#${name.trim().toLowerCase()}` }),
  /** A review comment of an organization; the first index lists a target's comments oldest first (gsi1sk `created_at#id`). */
  reviewComment: (orgId: string, commentId: string) => ({ pk: `ORG#${orgId}`, sk: `COMMENT#${commentId}` }),
  commentsOfTarget: (orgId: string, targetType: string, targetId: string) => `ORG#${orgId}#COMMENTS#${targetType}#${targetId}`, // gsi1pk of comment items
  /** A project's environment variables: a partition of their own, so listing projects never reads them. */
  environmentOfProject: (orgId: string, projectId: string) => `ORG#${orgId}#PROJECT#${projectId}#ENV`,
  environmentVariable: (orgId: string, projectId: string, name: string) => ({ pk: `ORG#${orgId}#PROJECT#${projectId}#ENV`, sk: `VAR#${name}` }),
  test: (orgId: string, testId: string) => ({ pk: `ORG#${orgId}`, sk: `TEST#${testId}` }),
  testsOfProject: (projectId: string) => `PROJECT#${projectId}#TESTS`, // gsi1pk of test items
  /** One revision of a test's definition; the zero-padded number sorts the history in order. */
  testRevision: (orgId: string, testId: string, revision: number) => ({ pk: `ORG#${orgId}`, sk: `TESTREV#${testId}#${String(revision).padStart(10, '0')}` }),
  testRevisionsOf: (testId: string) => `TESTREV#${testId}#`, // sk prefix of one test's revisions (in its organization's partition)
  testRun: (orgId: string, runId: string) => ({ pk: `ORG#${orgId}`, sk: `RUN#${runId}` }),
  runsOfProject: (projectId: string) => `PROJECT#${projectId}#RUNS`, // gsi1pk of run items
  threadClaim: (threadId: string) => ({ pk: `THREAD#${threadId}`, sk: 'THREAD' }),
  resultsOfRun: (orgId: string, runId: string) => `ORG#${orgId}#RUN#${runId}`, // pk of result items
  resultsOfTest: (testId: string) => `TEST#${testId}#RESULTS`, // gsi1pk of result items
  auditPartition: (orgId: string) => `AUDIT#${orgId}`,
  invitation: (orgId: string, invitationId: string) => ({ pk: `ORG#${orgId}`, sk: `INVITE#${invitationId}` }),
  invitationToken: (hash: string) => ({ pk: `INVITETOKEN#${hash}`, sk: 'INVITETOKEN' }),
  systemSetting: (name: string) => ({ pk: 'SYSTEM', sk: `SETTING#${name}` }),
  generatedTest: (orgId: string, id: string) => ({ pk: `ORG#${orgId}`, sk: `GENTEST#${id}` }),
  generatedTestsOfProject: (projectId: string) => `PROJECT#${projectId}#GENTESTS`, // gsi1pk of generated tests
  discoverySession: (orgId: string, sessionId: string) => ({ pk: `ORG#${orgId}`, sk: `DISCOVERY#${sessionId}` }),
  discoveriesOfProject: (projectId: string) => `PROJECT#${projectId}#DISCOVERY`, // gsi1pk of discovery sessions
  /** A codebase handed to the knowledge worker (POST /api/analyze with async). */
  codebaseIngestion: (orgId: string, ingestionId: string) => ({ pk: `ORG#${orgId}`, sk: `CODEBASE#${ingestionId}` }),
  ingestionsOfProject: (projectId: string) => `PROJECT#${projectId}#CODEBASE`, // gsi1pk of codebase ingestions (gsi1sk created_at#id)
  discoveryChildren: (orgId: string, sessionId: string) => `ORG#${orgId}#DISCOVERY#${sessionId}`, // pk of pages, elements, flows
  discoveryChild: (orgId: string, sessionId: string, sk: string) => ({ pk: `ORG#${orgId}#DISCOVERY#${sessionId}`, sk }),
  aiUsage: (orgId: string, usageId: string) => ({ pk: `ORG#${orgId}`, sk: `AIUSAGE#${usageId}` }),
  aiUsageDaily: (orgId: string, day: string) => ({ pk: `ORG#${orgId}`, sk: `AIUSAGEDAY#${day}` }),
  aiUsageMonthly: (orgId: string, month: string) => ({ pk: `ORG#${orgId}`, sk: `AIUSAGEMONTH#${month}` }),
  aiSpend: (orgId: string, scope: string) => ({ pk: `ORG#${orgId}`, sk: `AISPEND#${scope}` }), // scope RUN#<id>[#TEST#<id>] or TEST#<id>
  aiBudgetAlert: (orgId: string, period: string) => ({ pk: `ORG#${orgId}`, sk: `AIALERT#${period}` }),
  chatConversation: (orgId: string, conversationId: string) => ({ pk: `ORG#${orgId}`, sk: `CHAT#${conversationId}` }),
  chatMessages: (orgId: string, conversationId: string) => `ORG#${orgId}#CHAT#${conversationId}`, // pk of message items
  healingPattern: (orgId: string, patternId: string) => ({ pk: `ORG#${orgId}`, sk: `HEALPAT#${patternId}` }),
  healingPatternsOfSelector: (orgId: string, projectId: string | null, selectorHash: string) => `ORG#${orgId}#HEALSEL#${projectId ?? '-'}#${selectorHash}`, // gsi1pk of pattern items
  healingStats: (orgId: string) => ({ pk: `ORG#${orgId}`, sk: 'HEALSTATS' }),
  healingCache: (orgId: string, entryKey: string) => ({ pk: `ORG#${orgId}#HEALCACHE`, sk: `ENTRY#${entryKey}` }),
  healingCacheOfSelector: (orgId: string, projectId: string, selectorHash: string) => `ORG#${orgId}#HEALCACHESEL#${projectId}#${selectorHash}`, // gsi1pk of cache items
  memoryEntry: (orgId: string, keyHash: string) => ({ pk: `ORG#${orgId}#MEMORY`, sk: `KEY#${keyHash}` }),
  /** A search candidate's embedding, by a hash of the model and the text (search/embedding-cache.ts). */
  searchVector: (orgId: string, keyHash: string) => ({ pk: `ORG#${orgId}#VECTORS`, sk: `VEC#${keyHash}` }),
  /** visual_baselines: one per (test, name), in a partition of the organization's own so a run reads its baseline with one GetItem. */
  visualBaseline: (orgId: string, testId: string, name: string) => ({ pk: `ORG#${orgId}#VISUAL`, sk: `TEST#${testId}#NAME#${name}` }),
  visualBaselines: (orgId: string) => `ORG#${orgId}#VISUAL`, // pk of baseline items
  visualBaselinesOfTest: (testId: string) => `TEST#${testId}#NAME#`, // sk prefix of one test's baselines
  visualBaselinesOfProject: (orgId: string, projectId: string) => `ORG#${orgId}#PROJECT#${projectId}#VISUAL`, // gsi1pk of baseline items (gsi1sk: their sk)
  visualBaselineId: (orgId: string, baselineId: string) => ({ pk: `ORG#${orgId}`, sk: `VISUAL#${baselineId}` }), // id → (test, name) pointer
  notificationChannel: (orgId: string, channelId: string) => ({ pk: `ORG#${orgId}`, sk: `NOTIFYCH#${channelId}` }),
  /** A channel's deliveries; sk `<run id or test-id>#<event>`: one per run and event, claimed before sending. */
  notificationLogs: (orgId: string, channelId: string) => `ORG#${orgId}#NOTIFYLOG#${channelId}`,
  flow: (orgId: string, flowId: string) => ({ pk: `ORG#${orgId}`, sk: `FLOW#${flowId}` }),
  flowsOfProject: (projectId: string) => `PROJECT#${projectId}#FLOWS`, // gsi1pk of flows (gsi1sk: their id)
  /** A flow's name, claimed per project (lower-cased): names are unique regardless of case. */
  flowName: (orgId: string, projectId: string, name: string) => ({ pk: `ORG#${orgId}#PROJECT#${projectId}#FLOWNAME`, sk: name.trim().toLowerCase() }),
  schedule: (orgId: string, scheduleId: string) => ({ pk: `ORG#${orgId}`, sk: `SCHEDULE#${scheduleId}` }),
  schedulesOfProject: (projectId: string) => `PROJECT#${projectId}#SCHEDULES`, // gsi1pk of schedules (gsi1sk: their id)
  vcsIntegration: (orgId: string, integrationId: string) => ({ pk: `ORG#${orgId}`, sk: `VCSINT#${integrationId}` }),
  vcsIntegrationsOfProject: (projectId: string) => `PROJECT#${projectId}#VCSINT`, // gsi1pk of integrations (gsi1sk: their id)
  /** gsi2pk of integrations (gsi2sk `<orgId>#<id>`): an unauthenticated webhook names only its repository, in any organization. */
  vcsIntegrationsOfRepository: (provider: string, repository: string) => `VCSREPO#${provider}#${repository.toLowerCase()}`,
  /** An integration's delivery log; sk: the log entry's id (time-ordered). */
  vcsDeliveries: (orgId: string, integrationId: string) => `ORG#${orgId}#VCSLOG#${integrationId}`,
  /** The commit a webhook's run tests, by its thread (`vcs-<integration>-<delivery>`): written before the run exists. */
  vcsRunCommit: (orgId: string, threadId: string) => ({ pk: `ORG#${orgId}#VCSRUN`, sk: threadId }),
  /** An integration's commit statuses; sk `<run id>#<phase>`: one per run and phase, claimed before posting. */
  vcsStatuses: (orgId: string, integrationId: string) => `ORG#${orgId}#VCSSTATUS#${integrationId}`,
  chatIntegration: (orgId: string, integrationId: string) => ({ pk: `ORG#${orgId}`, sk: `CHATINT#${integrationId}` }),
  /** gsi2pk of chat integrations (gsi2sk `<orgId>#<id>`): a slash command names only its workspace; `*` is the bucket of integrations that take any workspace. */
  chatIntegrationsOfTeam: (provider: string, teamId: string | null) => `CHATTEAM#${provider}#${teamId ?? '*'}`,
  /** Where a chat command's run reports its outcome, by the run's thread (`chat-<integration>-<id>`): written before the run exists. */
  chatRunReply: (orgId: string, threadId: string) => ({ pk: `ORG#${orgId}#CHATRUN`, sk: threadId }),
  automationIntegration: (orgId: string, integrationId: string) => ({ pk: `ORG#${orgId}`, sk: `AUTOINT#${integrationId}` }),
  /** gsi2pk of an automation integration (gsi2sk: its organization): an event names only the integration's id (X-Svc-Integration). */
  automationIntegrationById: (integrationId: string) => `AUTOINT#${integrationId}`,
  /** Where an automation event's run posts its outcome, by the run's thread (`automation-<integration>-<delivery>`): written before the run exists. */
  automationCallback: (orgId: string, threadId: string) => ({ pk: `ORG#${orgId}#AUTORUN`, sk: threadId }),
  /** gsi2pk of enabled schedules, with gsi2sk `<next_run_at>#<orgId>#<id>`: the sweeper reads what is due across organizations. */
  dueSchedules: 'SCHEDULES#DUE',
  /** gsi2pk of codebase ingestions still queued, with gsi2sk `<created_at>#<orgId>#<id>`: a restarted local runtime announces them again. */
  queuedIngestions: 'CODEBASE#QUEUED',
} as const;

/** Attributes that belong to the table layout, not to the resource. */
const layoutAttributes = new Set(['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk', 'expiresAt', 'entity']);

export function stripLayout<T>(item: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item)) if (!layoutAttributes.has(k)) out[k] = v;
  return out as T;
}
