import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { deviceLogin } from './device-login.ts';
import { readStoredLogin, saveStoredLogin, credentialsPath } from './credentials.ts';
import { usageError } from './usage-error.ts';

export const LOGIN_HELP = `Usage: svc login [--server <url>] [--organization <id>] [--name <agent>]
       svc logout [--server <url>]

Signs this machine's agents in to an svc server as you, with the OAuth device flow: svc
prints a code and a link; you open the link in a browser where you are signed in to the
dashboard, check the code and approve. svc mcp then uses the sign-in (refreshing it as it
goes) when SVC_API_KEY and SVC_TOKEN are not set. The token acts with your role, but never
reaches API keys, notifications, webhooks or environment variables.

Options:
  --server <url>       The svc server (env SVC_SERVER_URL, default http://127.0.0.1:4600)
  --organization <id>  Organization to act in (default: your default organization)
  --name <agent>       What the dashboard shows as asking (default: svc CLI on <host>)

The sign-in is kept in $SVC_CONFIG_DIR/credentials.json (else ~/.config/svc), readable by
you only. svc logout revokes it on the server and forgets it.

Exit code: 0 signed in (or out); 1 denied, expired or refused; 2 bad usage.
`;

const usage = (message: string): number => usageError('login', message);

/** The command's options and server, or the exit code when it should stop here (--help, bad usage). */
function parseCommand<O extends Record<string, { type: 'string' }>>(args: string[], env: NodeJS.ProcessEnv, options: O) {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args, options: { ...options, server: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true }) as { values: Record<string, string | boolean | undefined> });
  } catch (err) {
    return usage((err as Error).message);
  }
  if (values.help) {
    process.stdout.write(LOGIN_HELP);
    return 0;
  }
  const given = (values.server as string | undefined) || env.SVC_SERVER_URL;
  try {
    return { values: values as Partial<Record<keyof O, string>>, server: new URL(given || 'http://127.0.0.1:4600') };
  } catch {
    return usage(`--server must be a URL, got ${JSON.stringify(given)}`);
  }
}

interface Me {
  email: string;
  default_organization_id: string | null;
  memberships: Array<{ organization_id: string; organization_name: string }>;
}

/** `svc login`: the device flow, then which organization to act in, then the credentials file. */
export async function loginCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const parsed = parseCommand(args, env, { organization: { type: 'string' }, name: { type: 'string' } });
  if (typeof parsed === 'number') return parsed;
  const { values, server } = parsed;
  const clientId = values.name?.trim() || `svc CLI on ${hostname()}`;

  try {
    const tokens = await deviceLogin({
      server,
      clientId,
      show: (codes) => {
        process.stderr.write(
          `To sign in, open ${codes.verification_uri_complete ?? codes.verification_uri}\n` +
            `and check that it shows the code ${codes.user_code} (it works for ${Math.round(codes.expires_in / 60)} minutes).\n` +
            'Waiting for you to approve…\n',
        );
      },
    });
    const meRes = await fetch(new URL('/api/v1/users/me', server), { headers: { authorization: `Bearer ${tokens.access_token}`, accept: 'application/json' } });
    if (!meRes.ok) throw new Error(`the new token was refused by ${server.origin} (HTTP ${meRes.status})`);
    const me = (await meRes.json()) as Me;
    const member = (id: string | null | undefined) => me.memberships.find((m) => m.organization_id === id);
    if (values.organization && !member(values.organization)) {
      process.stderr.write(`svc login: you are not a member of organization ${values.organization}; yours: ${me.memberships.map((m) => `${m.organization_id} (${m.organization_name})`).join(', ') || 'none'}\n`);
      return 1;
    }
    const organization = member(values.organization) ?? member(me.default_organization_id) ?? me.memberships[0];
    await saveStoredLogin(env, server.origin, {
      ...tokens,
      organization_id: organization?.organization_id ?? null,
      email: me.email,
      client_id: clientId,
    });
    process.stdout.write(
      `Signed in to ${server.origin} as ${me.email}${organization ? ` in ${organization.organization_name} (${organization.organization_id})` : ''}.\n` +
        `svc mcp --server ${server.origin} now uses this sign-in (kept in ${credentialsPath(env)}).\n`,
    );
    return 0;
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    process.stderr.write(`svc login: ${(err as Error).message}${cause ? ` (${cause})` : ''}\n`);
    return 1;
  }
}

/** `svc logout`: revokes the stored refresh token on the server and forgets the sign-in. */
export async function logoutCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const parsed = parseCommand(args, env, {});
  if (typeof parsed === 'number') return parsed;
  const { server } = parsed;
  const stored = await readStoredLogin(env, server.origin);
  if (!stored) {
    process.stdout.write(`Not signed in to ${server.origin}.\n`);
    return 0;
  }
  let revoked = false;
  try {
    const res = await fetch(new URL('/api/auth/logout', server), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refresh_token: stored.refresh_token }) });
    revoked = res.ok;
  } catch {
    revoked = false;
  }
  await saveStoredLogin(env, server.origin, undefined);
  process.stdout.write(`Signed out of ${server.origin}${revoked ? '' : ' (the server could not be reached to revoke the sign-in; it lapses on its own within 30 days)'}.\n`);
  return 0;
}
