/**
 * The agent's side of the OAuth 2.0 device flow (RFC 8628) against an svc server: find
 * the endpoints in its metadata (RFC 8414), ask for codes, let the caller show them, and
 * poll at the server's pace (slow_down adds 5 seconds) until the person decides or the
 * codes expire.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DEVICE_CODE_GRANT } from '@svc/core/auth/device-codes';

export interface DeviceCodes {
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
}

export interface DeviceTokens {
  access_token: string;
  refresh_token: string;
  expires_at: string;
  token_endpoint: string;
}

export interface DeviceLoginOptions {
  server: URL;
  clientId: string;
  /** Show the person the code and where to enter it. */
  show(codes: DeviceCodes): void;
  fetchImpl?: typeof fetch;
  wait?: (ms: number) => Promise<unknown>;
}

async function jsonOf(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`${res.url} answered ${res.status} with something that is not JSON`);
  }
}

export async function deviceLogin(opts: DeviceLoginOptions): Promise<DeviceTokens> {
  const fetchImpl = opts.fetchImpl ?? fetch;
  const wait = opts.wait ?? sleep;
  const metadataUrl = new URL('/.well-known/oauth-authorization-server', opts.server);
  const metadataRes = await fetchImpl(metadataUrl, { headers: { accept: 'application/json' } });
  if (!metadataRes.ok) throw new Error(`${metadataUrl.href} answered ${metadataRes.status}: is this an svc server with agent sign-in?`);
  const metadata = await jsonOf(metadataRes);
  const deviceEndpoint = String(metadata.device_authorization_endpoint ?? '');
  const tokenEndpoint = String(metadata.token_endpoint ?? '');
  if (!deviceEndpoint || !tokenEndpoint) throw new Error(`${metadataUrl.href} names no device authorization or token endpoint`);

  const form = (fields: Record<string, string>) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(fields),
  });
  const codesRes = await fetchImpl(deviceEndpoint, form({ client_id: opts.clientId }));
  const codes = await jsonOf(codesRes);
  if (!codesRes.ok) throw new Error(`the server refused to start a sign-in: ${String(codes.error_description ?? codes.error ?? codesRes.status)}`);
  const deviceCode = String(codes.device_code);
  let interval = Number(codes.interval ?? 5);
  const expiresAt = Date.now() + Number(codes.expires_in) * 1000;
  opts.show({
    user_code: String(codes.user_code),
    verification_uri: String(codes.verification_uri),
    verification_uri_complete: codes.verification_uri_complete ? String(codes.verification_uri_complete) : undefined,
    expires_in: Number(codes.expires_in),
  });

  while (Date.now() < expiresAt) {
    await wait(interval * 1000);
    const res = await fetchImpl(tokenEndpoint, form({ grant_type: DEVICE_CODE_GRANT, device_code: deviceCode, client_id: opts.clientId }));
    const body = await jsonOf(res);
    if (res.ok) {
      return {
        access_token: String(body.access_token),
        refresh_token: String(body.refresh_token),
        expires_at: new Date(Date.now() + Number(body.expires_in) * 1000).toISOString(),
        token_endpoint: tokenEndpoint,
      };
    }
    if (body.error === 'authorization_pending') continue;
    if (body.error === 'slow_down') {
      interval += 5;
      continue;
    }
    if (body.error === 'access_denied') throw new Error('the sign-in was denied in the dashboard');
    if (body.error === 'expired_token') break;
    throw new Error(`the sign-in failed: ${String(body.error_description ?? body.error ?? res.status)}`);
  }
  throw new Error('the code expired before anyone approved it: run svc login again');
}
