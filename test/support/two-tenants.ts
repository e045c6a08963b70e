import { afterAll, beforeAll } from 'vitest';
import { startTestServer, client, signUp, type TestServer, type Client } from './server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

export interface TwoTenants {
  server: TestServer;
  fixture: FixtureApp;
  /** A member (the owner) of the first organization. */
  api: Client;
  /** The owner of a second organization. */
  stranger: Client;
  projectId: string;
  strangerProjectId: string;
  stop(): Promise<void>;
}

/**
 * The real local server and the fixture app, with two organizations that each own a
 * project on the app: for the routes that open a project's pages in the server's browser
 * (the quality audit, browser actions), which must not reach the other's project.
 */
export async function startWithTwoTenants(name: string): Promise<TwoTenants> {
  const fixture = await startFixtureApp();
  const server = await startTestServer();
  const owner = await signUp(server.url, `${name}@example.com`);
  const api = client(server.url, { token: owner.token, org: owner.orgId });
  const projectId = (await api.post('/api/v1/projects', { name: 'shop', app_url: fixture.url })).body.id;
  const other = await signUp(server.url, `other-${name}@example.com`);
  const stranger = client(server.url, { token: other.token, org: other.orgId });
  const strangerProjectId = (await stranger.post('/api/v1/projects', { name: 'theirs', app_url: fixture.url })).body.id;
  return {
    server, fixture, api, stranger, projectId, strangerProjectId,
    async stop() {
      await server.stop();
      await fixture.close();
    },
  };
}

/** startWithTwoTenants for a whole test file: started before its tests, stopped after; the fields are set once started. */
export function twoTenantsForFile(name: string): TwoTenants {
  const env = {} as TwoTenants;
  beforeAll(async () => {
    Object.assign(env, await startWithTwoTenants(name));
  }, 60_000);
  afterAll(async () => {
    await env.stop?.();
  });
  return env;
}
