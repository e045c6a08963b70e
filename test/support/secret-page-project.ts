import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, client, signUp, type TestServer, type Client } from './server.ts';

/** HTML-escapes text a test page echoes, as a real app would. */
export const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export interface SecretPageProject {
  server: TestServer;
  api: Client;
  token: string;
  projectId: string;
  stop(): Promise<void>;
}

/**
 * The setup of the secret-masking tests: an app made of one page handler (on loopback), a
 * local svc server, a signed-up user and a project on that app holding one secret set
 * through the environment API — the way a member's secret reaches a test.
 */
export async function secretPageProject(opts: { email: string; secretName: string; secret: string; page: RequestListener }): Promise<SecretPageProject> {
  const app: Server = createServer(opts.page);
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  const server = await startTestServer();
  const user = await signUp(server.url, opts.email);
  const api = client(server.url, { token: user.token, org: user.orgId });
  const project = await api.post('/api/v1/projects', { name: 'shop', app_url: `http://127.0.0.1:${(app.address() as AddressInfo).port}` });
  if (project.status !== 201) throw new Error(`creating the project answered ${project.status}: ${project.text}`);
  const secret = await api.put(`/api/v1/projects/${project.body.id}/environment/${opts.secretName}`, { value: opts.secret, secret: true });
  if (secret.status !== 200) throw new Error(`setting the secret answered ${secret.status}: ${secret.text}`);
  return {
    server, api, token: user.token, projectId: project.body.id,
    async stop() {
      await server.stop();
      await new Promise((resolve) => app.close(resolve));
    },
  };
}
