import { describe, it, expect, afterEach } from 'vitest';
import { startTestServer, client, type TestServer } from '../support/server.ts';

/**
 * The sign-in budget per address could be reset by writing a new X-Forwarded-For on each
 * guess: the limiter trusted the header's first, client-written entry. Now the address is
 * the socket's unless the operator says proxies of theirs append to the header
 * (SVC_TRUSTED_PROXY_HOPS); and failed sign-ins are also counted per email, so guesses
 * from many addresses at one account run out too.
 */
let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const login = (email: string, password: string, forwardedFor?: string) =>
  client(server!.url).post('/api/auth/login', { email, password }, { headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} });

describe('the address sign-ins are limited by', () => {
  it('is the socket\'s: a new X-Forwarded-For on each guess does not reset the budget', async () => {
    server = await startTestServer({ env: { SVC_AUTH_RATE_LIMIT: '3' } });
    const statuses: number[] = [];
    for (let i = 1; i <= 5; i++) statuses.push((await login(`guess${i}@example.com`, 'wrong password', `203.0.113.${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });

  it('with SVC_TRUSTED_PROXY_HOPS=1, the entry the proxy appended (the last), never the client-written ones before it', async () => {
    server = await startTestServer({ env: { SVC_AUTH_RATE_LIMIT: '3', SVC_TRUSTED_PROXY_HOPS: '1' } });
    const statuses: number[] = [];
    // One client behind the proxy (198.51.100.7), writing a different address of its own each time.
    for (let i = 1; i <= 4; i++) statuses.push((await login(`proxied${i}@example.com`, 'wrong password', `203.0.113.${i}, 198.51.100.7`)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    // Another client behind the same proxy has its own budget.
    expect((await login('other@example.com', 'wrong password', '198.51.100.8')).status).toBe(401);
    // Without the header the peer (the proxy's socket) is the address: a budget of its own too.
    expect((await login('direct@example.com', 'wrong password')).status).toBe(401);
  });
});

describe('failed sign-ins per email', () => {
  it('from many addresses, one account gets SVC_LOGIN_FAILURE_LIMIT guesses; then even the right password waits; other accounts do not', async () => {
    server = await startTestServer({ env: { SVC_LOGIN_FAILURE_LIMIT: '3', SVC_TRUSTED_PROXY_HOPS: '1' } });
    const { email, password } = server.admin;
    const statuses: number[] = [];
    for (let i = 1; i <= 3; i++) statuses.push((await login(email, 'wrong password', `203.0.113.${i}`)).status);
    expect(statuses).toEqual([401, 401, 401]);
    const spent = await login(email.toUpperCase(), password, '203.0.113.99');
    expect(spent.status).toBe(429);
    expect(spent.body.error.code).toBe('RATE_LIMITED');
    expect(spent.body.error.message).toMatch(/^too many failed sign-ins for this email; retry in \d+s$/);
    expect(Number(spent.headers.get('retry-after'))).toBeGreaterThan(0);
    // An unknown email counts the same (it tells nothing), and is counted on its own.
    expect((await login('nobody@example.com', 'wrong password', '203.0.113.50')).status).toBe(401);
  });

  it('a successful sign-in clears the count', async () => {
    server = await startTestServer({ env: { SVC_LOGIN_FAILURE_LIMIT: '2' } });
    const { email, password } = server.admin;
    expect((await login(email, 'wrong password')).status).toBe(401);
    expect((await login(email, password)).status).toBe(200);
    expect((await login(email, 'wrong password')).status).toBe(401);
    expect((await login(email, password)).status).toBe(200);
  });
});
