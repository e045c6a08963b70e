/**
 * Where `svc login` keeps an agent's sign-in, per server: a JSON file readable by its
 * owner only (0600 in a 0700 folder), `$SVC_CONFIG_DIR/credentials.json`, else under
 * `$XDG_CONFIG_HOME/svc` or `~/.config/svc`. Tokens never go on a command line.
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface StoredLogin {
  access_token: string;
  refresh_token: string;
  /** When the access token stops working (ISO). */
  expires_at: string;
  token_endpoint: string;
  organization_id: string | null;
  email: string;
  client_id: string;
}

interface CredentialsFile {
  servers: Record<string, StoredLogin>;
}

export function credentialsPath(env: NodeJS.ProcessEnv): string {
  const folder = env.SVC_CONFIG_DIR || join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'svc');
  return join(folder, 'credentials.json');
}

async function readAll(path: string): Promise<CredentialsFile> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<CredentialsFile>;
    return { servers: parsed.servers && typeof parsed.servers === 'object' ? parsed.servers : {} };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { servers: {} };
    throw new Error(`cannot read ${path}: ${(err as Error).message}`);
  }
}

export async function readStoredLogin(env: NodeJS.ProcessEnv, origin: string): Promise<StoredLogin | undefined> {
  return (await readAll(credentialsPath(env))).servers[origin];
}

/** Saves (or, with undefined, forgets) one server's sign-in; the file is replaced atomically. */
export async function saveStoredLogin(env: NodeJS.ProcessEnv, origin: string, login: StoredLogin | undefined): Promise<void> {
  const path = credentialsPath(env);
  const all = await readAll(path);
  if (login) all.servers[origin] = login;
  else delete all.servers[origin];
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

/** Refresh this long before the access token's expiry, so a call never carries one that lapses on the way. */
const REFRESH_MARGIN_MS = 60_000;

/**
 * The stored sign-in's access token, refreshed through the token endpoint when it is
 * about to expire (the refresh token rotates; the file is updated). Concurrent callers
 * share one refresh. When another process refreshed first (our refresh token is spent),
 * the file holds its newer tokens, and those are used.
 */
export function storedAccessToken(env: NodeJS.ProcessEnv, origin: string, initial: StoredLogin, fetchImpl: typeof fetch = fetch) {
  let login = initial;
  let refreshing: Promise<string> | undefined;

  async function refresh(): Promise<string> {
    const res = await fetchImpl(login.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: login.refresh_token, client_id: login.client_id }),
    });
    const body = (await res.json().catch(() => ({}))) as { access_token?: string; refresh_token?: string; expires_in?: number; error?: string; error_description?: string };
    if (!res.ok || !body.access_token || !body.refresh_token) {
      const latest = await readStoredLogin(env, origin);
      if (latest && latest.refresh_token !== login.refresh_token) {
        login = latest; // another process refreshed first
        return fresh();
      }
      throw new Error(`the stored sign-in for ${origin} no longer works (${body.error_description ?? body.error ?? `HTTP ${res.status}`}): run svc login --server ${origin}`);
    }
    login = { ...login, access_token: body.access_token, refresh_token: body.refresh_token, expires_at: new Date(Date.now() + (body.expires_in ?? 0) * 1000).toISOString() };
    await saveStoredLogin(env, origin, login);
    return login.access_token;
  }

  async function fresh(): Promise<string> {
    if (Date.parse(login.expires_at) - Date.now() > REFRESH_MARGIN_MS) return login.access_token;
    refreshing ??= refresh().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  }

  return { token: fresh, organizationId: () => login.organization_id };
}
