import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { automationHeaders, automationSignature, deliveryIdOf, readAutomationRequest, verifyAutomationSignature } from './signature.ts';

const ID = '0196a3b2-0000-7000-8000-00000000abcd';
const NOW = new Date('2026-11-26T16:00:00Z');
const TS = NOW.getTime() / 1000;
const headersOf = (h: Record<string, string>) => (name: string) => h[name];
const codeOf = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return (err as AppError).code;
  }
  return 'none';
};

describe('automation signature', () => {
  it('is sha256= and the hex HMAC-SHA256 of "<timestamp>.<body>" (the value openssl gives for the docs\' shell example)', () => {
    // printf '%s.%s' 1764000000 '{"event":"run.requested","project":"Shop"}' | openssl dgst -sha256 -hmac whsec_abc
    expect(automationSignature('whsec_abc', 1764000000, '{"event":"run.requested","project":"Shop"}')).toBe('sha256=d95cbb17a81861ce110b8401b8e87a604b009e8dad77f4e45fcfead4088d186b');
  });

  it('verifies the bytes it was made over, and nothing else', () => {
    const body = new TextEncoder().encode('{"event":"run.requested"}');
    const signature = automationSignature('s3cret', TS, body);
    expect(verifyAutomationSignature('s3cret', TS, body, signature)).toBe(true);
    expect(verifyAutomationSignature('s3cret', TS, body, signature.toUpperCase())).toBe(true);
    expect(verifyAutomationSignature('other', TS, body, signature)).toBe(false);
    expect(verifyAutomationSignature('s3cret', TS + 1, body, signature)).toBe(false);
    expect(verifyAutomationSignature('s3cret', TS, new TextEncoder().encode('{"event":"run.requested" }'), signature)).toBe(false);
  });

  it('signs the callbacks with the same headers it reads', () => {
    const h = automationHeaders({ integrationId: ID, secret: 's3cret', body: '{}', now: NOW, deliveryId: 'run-finished-x' });
    const read = readAutomationRequest(headersOf(h), NOW);
    expect(read).toEqual({ integration_id: ID, timestamp: TS, signature: automationSignature('s3cret', TS, '{}'), delivery_header: 'run-finished-x' });
  });

  it('refuses with 401 a request without headers, an integration that is not an id, a timestamp 5 minutes off', () => {
    const good = { 'x-svc-integration': ID, 'x-svc-timestamp': String(TS), 'x-svc-signature': 'sha256=00' };
    expect(codeOf(() => readAutomationRequest(headersOf(good), NOW))).toBe('none');
    for (const bad of [
      { ...good, 'x-svc-integration': '' },
      { ...good, 'x-svc-integration': 'n8n' },
      { ...good, 'x-svc-signature': '' },
      { ...good, 'x-svc-timestamp': String(TS - 301) },
      { ...good, 'x-svc-timestamp': String(TS + 301) },
      { ...good, 'x-svc-timestamp': '1e9' },
    ]) expect(codeOf(() => readAutomationRequest(headersOf(bad), NOW)), JSON.stringify(bad)).toBe('INVALID_SIGNATURE');
    expect(codeOf(() => readAutomationRequest(headersOf({ ...good, 'x-svc-timestamp': String(TS - 299) }), NOW))).toBe('none');
  });

  it('takes the delivery id from the header, else the body; a malformed header is 400', () => {
    const request = (delivery: string | null) => ({ integration_id: ID, timestamp: TS, signature: '', delivery_header: delivery });
    expect(deliveryIdOf(request('n8n-1'), 'body-1')).toBe('n8n-1');
    expect(deliveryIdOf(request(null), 'body-1')).toBe('body-1');
    expect(deliveryIdOf(request(null), undefined)).toBeNull();
    expect(codeOf(() => deliveryIdOf(request('has spaces'), undefined))).toBe('VALIDATION_FAILED');
    expect(codeOf(() => deliveryIdOf(request('x'.repeat(65)), undefined))).toBe('VALIDATION_FAILED');
  });
});
