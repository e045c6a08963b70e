import { readStoredLogin, storedAccessToken } from './credentials.ts';

/** How a command that talks to a svc server authenticates, decided once from the environment. */
export interface ServerCredential {
  /** Headers every request carries (authorization and organization), fresh for a stored sign-in. */
  headers(): Promise<Record<string, string>>;
  /** A stored sign-in is in use (its refusal means: run svc login again). */
  storedSignIn: boolean;
  /** The headers that never change (for transports that take them once). */
  staticHeaders: Record<string, string>;
  /** For a stored sign-in: a token that is refreshed as it expires. */
  freshToken?: () => Promise<string>;
}

/**
 * The credential of a CLI command that calls a server: SVC_API_KEY (svc_sk_…) or SVC_TOKEN
 * (an access token) from the environment, never the command line (process lists show it);
 * else the sign-in svc login stored for that server, refreshed as it expires. The
 * organization: the flag, else SVC_ORGANIZATION_ID, else the stored sign-in's (an API key
 * always acts in its own). A string is what to tell the user when there is none.
 */
export async function serverCredential(env: NodeJS.ProcessEnv, origin: string, organizationFlag?: string): Promise<ServerCredential | string> {
  const credential = env.SVC_API_KEY?.trim() || env.SVC_TOKEN?.trim();
  const stored = credential ? undefined : await readStoredLogin(env, origin);
  if (!credential && !stored) return `set SVC_API_KEY (an API key, svc_sk_…) or SVC_TOKEN (an access token), or sign in with svc login --server ${origin}`;
  const login = stored && storedAccessToken(env, origin, stored);
  const organization = organizationFlag || env.SVC_ORGANIZATION_ID || login?.organizationId() || undefined;
  const staticHeaders: Record<string, string> = { ...(credential && { authorization: `Bearer ${credential}` }), ...(organization && { 'x-organization-id': organization }) };
  return {
    storedSignIn: !!login,
    staticHeaders,
    ...(login && { freshToken: () => login.token() }),
    headers: async () => (login ? { ...staticHeaders, authorization: `Bearer ${await login.token()}` } : staticHeaders),
  };
}

/** What to add to a refusal of a stored sign-in (signed out on /device, or lapsed). */
export const signInAgainHint = (origin: string) => `The sign-in svc login stored for ${origin} no longer works: run svc login --server ${origin}`;
