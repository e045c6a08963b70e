import { AppError, notFound, validationFailed } from '../errors.ts';
import type { Store, Role, UserProfile } from '../store/index.ts';
import {
  hashPassword,
  verifyPassword,
  generateRefreshToken,
  hashRefreshToken,
  hashApiKey,
  looksLikeApiKey,
  roleForScopes,
  type ApiKeyScope,
  type JwtVerifier,
  type LocalIssuer,
} from '../auth/index.ts';

/** Who is calling, once their credential checked out. */
export type Principal =
  | {
      kind: 'user';
      userId: string;
      email: string;
      /** Set when the token is an agent's (OAuth device flow): the agent acts as the user, within the agent interface's limits. */
      agent?: string;
    }
  | {
      kind: 'apiKey';
      keyId: string;
      userId: string; // the member who created the key; audit entries name them
      organizationId: string;
      projectId: string | null;
      scopes: ApiKeyScope[];
    };

/** The caller's standing in the organization a request is scoped to. */
export interface OrganizationAccess {
  organizationId: string;
  role: Role;
}

export interface Session {
  user: { id: string; email: string; display_name: string };
  access_token: string;
  expires_at: string;
  refresh_token: string;
}

export interface IdentityServiceOptions {
  store: Store;
  issuer: LocalIssuer;
  verifier: JwtVerifier;
  refreshTtlSeconds?: number; // default 30 days
}

const DEFAULT_REFRESH_TTL_SECONDS = 30 * 24 * 3600;

const agentRevoked = () => new AppError('INVALID_TOKEN', "this agent's sign-in was revoked: sign it in again (svc login)");
const invalidCredentials = () => new AppError('INVALID_CREDENTIALS', 'email or password is incorrect');

export function createIdentityService(opts: IdentityServiceOptions) {
  const { store, issuer, verifier } = opts;
  const refreshTtl = opts.refreshTtlSeconds ?? DEFAULT_REFRESH_TTL_SECONDS;
  // Verifying against a throwaway hash when the email is unknown keeps response time
  // from telling which emails have accounts.
  const decoyHash = hashPassword('decoy-password-for-timing');

  async function issueSession(profile: UserProfile, agent?: { clientId: string; grantId: string }): Promise<Session> {
    const access = await issuer.issueAccessToken({ sub: profile.user_id, email: profile.email, name: profile.display_name ?? undefined, agent });
    const refresh = generateRefreshToken();
    await store.refreshTokens.save(refresh.hash, profile.user_id, refreshTtl, agent);
    return {
      user: { id: profile.user_id, email: profile.email, display_name: profile.display_name ?? profile.email },
      access_token: access.token,
      expires_at: access.expiresAt.toISOString(),
      refresh_token: refresh.token,
    };
  }

  return {
    refreshTtlSeconds: refreshTtl,

    /** A new account with its own organization, where the user is admin. */
    async signUp(input: { email: string; password: string; display_name?: string; organization_name?: string }) {
      const passwordHash = await hashPassword(input.password);
      const profile = await store.users.create({ email: input.email, displayName: input.display_name, passwordHash });
      const { organization, membership } = await store.organizations.create(
        { name: input.organization_name ?? `${profile.display_name}'s organization` },
        { userId: profile.user_id, email: profile.email },
      );
      const updated = await store.users.updateProfile(profile.user_id, { default_organization_id: organization.id });
      return { session: await issueSession(updated), organization, membership };
    },

    async login(input: { email: string; password: string }): Promise<Session> {
      const userId = await store.users.findUserIdByEmail(input.email);
      const stored = userId ? await store.users.getPasswordHash(userId) : undefined;
      const ok = await verifyPassword(input.password, stored ?? (await decoyHash));
      if (!userId || !stored || !ok) throw invalidCredentials();
      const profile = await store.users.getProfile(userId);
      if (!profile) throw invalidCredentials();
      return issueSession(profile);
    },

    /** Rotates: the presented refresh token is consumed and a new one issued (an agent's stays an agent's, while its grant stands). */
    async refresh(refreshToken: string): Promise<Session> {
      const owner = await store.refreshTokens.consume(hashRefreshToken(refreshToken));
      const profile = owner ? await store.users.getProfile(owner.userId) : undefined;
      if (!owner || !profile) throw new AppError('INVALID_TOKEN', 'refresh token is invalid or expired');
      if (owner.agent && !(await store.agentGrants.touch(owner.userId, owner.agent.grantId, refreshTtl))) throw agentRevoked();
      return issueSession(profile, owner.agent);
    },

    /** A session in which `agent` acts as the user, under a new grant the user can see and revoke: what an approved device flow hands the agent. */
    async agentSession(userId: string, agent: string): Promise<Session> {
      const profile = await store.users.getProfile(userId);
      if (!profile) throw new AppError('INVALID_TOKEN', 'the user who approved this agent no longer exists');
      const grant = await store.agentGrants.create(userId, agent, refreshTtl);
      return issueSession(profile, { clientId: agent, grantId: grant.id });
    },

    /** Ends a session; an agent's sign-in (its grant) ends with it. */
    async logout(refreshToken: string | undefined): Promise<void> {
      if (!refreshToken) return;
      const owner = await store.refreshTokens.consume(hashRefreshToken(refreshToken));
      if (owner?.agent) await store.agentGrants.revoke(owner.userId, owner.agent.grantId);
    },

    /** The agents signed in as a user, newest first. */
    agentsOf: (userId: string) => store.agentGrants.listForUser(userId),

    /** Signs an agent out: its tokens stop working at once. */
    async revokeAgent(userId: string, grantId: string): Promise<void> {
      if (!(await store.agentGrants.revoke(userId, grantId))) throw notFound('agent sign-in');
    },

    /** Checks a credential: an API key (svc_sk_…) or a JWT from a trusted issuer. */
    async authenticate(credential: string): Promise<Principal> {
      if (credential.startsWith('svc_sk_')) {
        if (!looksLikeApiKey(credential)) throw new AppError('INVALID_TOKEN', 'API key is malformed');
        const hash = hashApiKey(credential);
        const key = await store.apiKeys.findByHash(hash);
        if (!key) throw new AppError('INVALID_TOKEN', 'API key is unknown, revoked or expired');
        void store.apiKeys.touch(hash, key);
        return {
          kind: 'apiKey',
          keyId: key.id,
          userId: key.created_by,
          organizationId: key.organization_id,
          projectId: key.project_id,
          scopes: key.permissions,
        };
      }
      const identity = await verifier.verify(credential);
      // An agent's token works only while the person's grant stands (revoking it ends its 15-minute tokens too).
      if (identity.agent && identity.agentGrant && !(await store.agentGrants.get(identity.userId, identity.agentGrant))) throw agentRevoked();
      const profile = await store.users.ensureProfile(identity.userId, identity.email);
      return { kind: 'user', userId: identity.userId, email: profile.email, ...(identity.agent && { agent: identity.agent }) };
    },

    /**
     * The caller's role in an organization. Not being a member reads as "no such
     * organization" (404), so existence never leaks across tenants.
     */
    async access(principal: Principal, named: string | undefined): Promise<OrganizationAccess> {
      // An id is a UUID, in any case (ids are stored lower-case); anything else is a malformed header, not an unknown organization.
      if (named !== undefined && !UUID.test(named)) throw validationFailed([{ path: 'X-Organization-ID', message: 'not a valid id (a UUID): the id of an organization you belong to' }]);
      const organizationId = named?.toLowerCase();
      if (principal.kind === 'apiKey') {
        if (organizationId && organizationId !== principal.organizationId) throw notFound('organization');
        // A key cannot outrank the member who created it, nor outlive their membership.
        const creator = await store.members.get(principal.organizationId, principal.userId);
        if (!creator) throw new AppError('INVALID_TOKEN', 'API key owner is no longer a member');
        const keyRole = roleForScopes(principal.scopes);
        return { organizationId: principal.organizationId, role: lowerRole(keyRole, creator.role) };
      }
      if (!organizationId) throw new AppError('ORGANIZATION_REQUIRED', 'X-Organization-ID header is required');
      const member = await store.members.get(organizationId, principal.userId);
      if (!member) throw notFound('organization');
      return { organizationId, role: member.role };
    },
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const rank: Record<Role, number> = { viewer: 0, member: 1, admin: 2 };
function lowerRole(a: Role, b: Role): Role {
  return rank[a] <= rank[b] ? a : b;
}

export type IdentityService = ReturnType<typeof createIdentityService>;
