import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { readSlackCommand, slackSignature, verifySlackSignature } from './slack-request.ts';

const bytes = (s: string) => new TextEncoder().encode(s);
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const headersOf = (h: Record<string, string>) => (name: string) => h[name];

function refusal(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('Slack signatures', () => {
  it("matches Slack's published example", () => {
    // api.slack.com/authentication/verifying-requests-from-slack, "a walkthrough".
    const body = 'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    expect(slackSignature('8f742231b10e8888abcd99yyyzzz85a5', 1531420618, body)).toBe('v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503');
  });

  it('verifies the raw bytes and the timestamp, and nothing else', () => {
    const body = bytes('team_id=T1&text=run');
    const signature = slackSignature('s3cret-signing-secret', 1700000000, body);
    expect(verifySlackSignature('s3cret-signing-secret', { timestamp: 1700000000, signature }, body)).toBe(true);
    expect(verifySlackSignature('s3cret-signing-secret', { timestamp: 1700000000, signature: signature.toUpperCase().replace('V0=', 'v0=') }, body)).toBe(true);
    expect(verifySlackSignature('s3cret-signing-secret', { timestamp: 1700000001, signature }, body)).toBe(false);
    expect(verifySlackSignature('s3cret-signing-secret', { timestamp: 1700000000, signature }, bytes('team_id=T1&text=run+'))).toBe(false);
    expect(verifySlackSignature('another-signing-secret', { timestamp: 1700000000, signature }, body)).toBe(false);
    expect(verifySlackSignature('s3cret-signing-secret', { timestamp: 1700000000, signature: 'v0=00' }, body)).toBe(false);
  });
});

describe('readSlackCommand', () => {
  const now = new Date('2026-11-22T09:00:00.000Z');
  const ts = String(now.getTime() / 1000);
  const fields = { team_id: 'T0001', user_id: 'U0001', user_name: 'ada', channel_id: 'C0001', command: '/svc', text: 'run shop', response_url: 'https://hooks.slack.com/commands/T0001/1/abc' };
  const good = { 'x-slack-signature': 'v0=00', 'x-slack-request-timestamp': ts, 'content-type': 'application/x-www-form-urlencoded' };

  it('reads the form', () => {
    expect(readSlackCommand(headersOf(good), bytes(form(fields)), now)).toEqual({ timestamp: Number(ts), signature: 'v0=00', ...fields });
  });

  it('refuses a request without its signature or with a timestamp more than 5 minutes off', () => {
    expect(refusal(() => readSlackCommand(headersOf({ ...good, 'x-slack-signature': '' }), bytes(form(fields)), now))).toEqual({ code: 'INVALID_SIGNATURE', message: expect.stringMatching(/X-Slack-Signature is missing/) });
    for (const stamp of [String(Number(ts) - 301), String(Number(ts) + 301), 'soon', '']) {
      const headers = { ...good, 'x-slack-request-timestamp': stamp };
      expect(refusal(() => readSlackCommand(headersOf(headers), bytes(form(fields)), now)).code, stamp).toBe('INVALID_SIGNATURE');
    }
    expect(readSlackCommand(headersOf({ ...good, 'x-slack-request-timestamp': String(Number(ts) - 299) }), bytes(form(fields)), now).team_id).toBe('T0001');
  });

  it('names what a form lacks, and refuses JSON', () => {
    for (const field of ['team_id', 'user_id', 'command', 'response_url']) {
      const { [field as keyof typeof fields]: _gone, ...rest } = fields;
      expect(refusal(() => readSlackCommand(headersOf(good), bytes(form(rest)), now)).message, field).toMatch(new RegExp(`^Invalid request: ${field}: required`));
    }
    expect(refusal(() => readSlackCommand(headersOf(good), bytes(form({ ...fields, response_url: 'ftp://x' })), now)).message).toMatch(/response_url: expected an http\(s\) URL/);
    expect(refusal(() => readSlackCommand(headersOf({ ...good, 'content-type': 'application/json' }), bytes('{}'), now)).code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });
});
