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
  apiKey: (orgId: string, keyId: string) => ({ pk: `ORG#${orgId}`, sk: `APIKEY#${keyId}` }),
  apiKeyHash: (hash: string) => ({ pk: `APIKEYHASH#${hash}`, sk: 'APIKEYHASH' }),
  project: (orgId: string, projectId: string) => ({ pk: `ORG#${orgId}`, sk: `PROJECT#${projectId}` }),
  test: (orgId: string, testId: string) => ({ pk: `ORG#${orgId}`, sk: `TEST#${testId}` }),
  testsOfProject: (projectId: string) => `PROJECT#${projectId}#TESTS`, // gsi1pk of test items
  testRun: (orgId: string, runId: string) => ({ pk: `ORG#${orgId}`, sk: `RUN#${runId}` }),
  runsOfProject: (projectId: string) => `PROJECT#${projectId}#RUNS`, // gsi1pk of run items
  threadClaim: (threadId: string) => ({ pk: `THREAD#${threadId}`, sk: 'THREAD' }),
  resultsOfRun: (orgId: string, runId: string) => `ORG#${orgId}#RUN#${runId}`, // pk of result items
  resultsOfTest: (testId: string) => `TEST#${testId}#RESULTS`, // gsi1pk of result items
  auditPartition: (orgId: string) => `AUDIT#${orgId}`,
  invitation: (orgId: string, invitationId: string) => ({ pk: `ORG#${orgId}`, sk: `INVITE#${invitationId}` }),
  invitationToken: (hash: string) => ({ pk: `INVITETOKEN#${hash}`, sk: 'INVITETOKEN' }),
  systemSetting: (name: string) => ({ pk: 'SYSTEM', sk: `SETTING#${name}` }),
} as const;

/** Attributes that belong to the table layout, not to the resource. */
const layoutAttributes = new Set(['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk', 'expiresAt', 'entity']);

export function stripLayout<T>(item: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item)) if (!layoutAttributes.has(k)) out[k] = v;
  return out as T;
}
