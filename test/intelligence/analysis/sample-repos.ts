import { cp, mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const reposDir = join(import.meta.dirname, '..', '..', 'fixtures', 'repos');

/** Text that must never leave the analyser; every sentinel file holds some. */
export const SENTINEL = 'SENTINEL';

/**
 * A copy of a sample repository in a temp folder, plus what cannot be committed: a
 * private key, cloud credentials, dependencies, a binary, symlinks out of the root.
 */
export async function sampleRepo(name: string) {
  const dir = await mkdtemp(join(tmpdir(), `svc-analyze-${name}-`));
  await cp(join(reposDir, name), dir, { recursive: true });
  const put = async (rel: string, content: string | Uint8Array) => {
    await mkdir(join(dir, rel, '..'), { recursive: true });
    await writeFile(join(dir, rel), content);
  };
  const pem = ['-----BEGIN', 'RSA PRIVATE KEY-----'].join(' ');
  await put('deploy/id_rsa', `${pem}\nkeyfile-${SENTINEL}\n-----END RSA PRIVATE KEY-----\n`);
  await put('deploy/server.pem', `${pem}\npemfile-${SENTINEL}\n`);
  await put('.aws/credentials', `[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\nnote = awsdir-${SENTINEL}\n`);
  await put('secrets.json', `{"token":"secretsjson-${SENTINEL}"}`);
  await put('node_modules/express/index.js', `module.exports = 'nodemodules-${SENTINEL}';`);
  await put('dist/bundle.js', `app.get('/from-dist', (req, res) => res.send('dist-${SENTINEL}'));`);
  await put('public/logo.bin.js', new Uint8Array([0x47, 0x49, 0x46, 0x00, 0x01, 0x02, 0x00, 0x53]));
  await put('public/latin1.txt', new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  const outside = await mkdtemp(join(tmpdir(), 'svc-analyze-outside-'));
  await writeFile(join(outside, 'leak.js'), `app.get('/leak', (req, res) => res.send('outside-${SENTINEL}'));`);
  await symlink(join(outside, 'leak.js'), join(dir, 'linked.js'));
  await symlink(outside, join(dir, 'linked-dir'));
  return {
    dir,
    async remove() {
      await rm(dir, { recursive: true, force: true });
      await rm(outside, { recursive: true, force: true });
    },
  };
}
