import { writeFile, readFile, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { generateApiKey } from '@svc/core/auth/index';
import type { AppDeps } from '../api/deps.ts';

export interface FirstAdmin {
  email: string;
  password: string;
  apiKey: string;
  organizationId: string;
  organizationName: string;
}

const CREDENTIALS_FILE = 'first-admin.json';
const ADMIN_EMAIL = 'admin@svc.local';

/**
 * On the first start of an empty data folder: an organization, an admin login and an
 * admin API key. They are printed once and kept in <dataDir>/first-admin.json (mode
 * 600) so a developer who missed the output can still sign in.
 */
export async function ensureFirstAdmin(deps: AppDeps, dataDir: string): Promise<{ admin: FirstAdmin; created: boolean }> {
  const file = join(dataDir, CREDENTIALS_FILE);
  const done = await deps.store.settings.get<{ organizationId: string }>('bootstrap');
  if (done) {
    const saved = JSON.parse(await readFile(file, 'utf8').catch(() => 'null')) as FirstAdmin | null;
    if (saved) return { admin: saved, created: false };
    throw new Error(`data folder ${dataDir} was set up before but ${CREDENTIALS_FILE} is gone; sign in with your own account`);
  }
  const password = randomBytes(12).toString('base64url');
  const { session, organization, membership } = await deps.identity.signUp({
    email: ADMIN_EMAIL,
    password,
    display_name: 'Admin',
    organization_name: 'My organization',
  });
  void session;
  const key = generateApiKey();
  await deps.store.apiKeys.create({
    organizationId: organization.id,
    name: 'first admin key',
    prefix: key.prefix,
    hash: key.hash,
    permissions: ['read', 'write', 'admin'],
    createdBy: membership.user_id,
  });
  const admin: FirstAdmin = { email: ADMIN_EMAIL, password, apiKey: key.key, organizationId: organization.id, organizationName: organization.name };
  await writeFile(file, JSON.stringify(admin, null, 2) + '\n', { mode: 0o600 });
  await chmod(file, 0o600);
  await deps.store.settings.getOrCreate('bootstrap', async () => ({ organizationId: organization.id }));
  return { admin, created: true };
}
