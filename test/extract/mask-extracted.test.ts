/**
 * Which extracted fields are masked in results: names whose words say credential
 * (password, token, api key, card number …), in snake, kebab or camel case — not names
 * that merely contain such letters (author, spinner, passenger) — and secret values
 * anywhere in what was read. Nested answers of a model are masked by their keys too.
 */
import { describe, it, expect } from 'vitest';
import { looksSecret, maskExtracted } from '../../packages/core/src/execution/extract/mask-extracted.ts';

describe('masking extracted values', () => {
  it('takes names whose words say credential, and leaves look-alikes', () => {
    for (const name of ['password', 'Password', 'user_password', 'newPassword', 'passwd', 'api_key', 'apiKey', 'API-KEY', 'accessToken', 'refresh_token', 'session-id', 'sessionId', 'csrf', 'card_number', 'cardNumber', 'cvv', 'pin', 'pin_code', 'otp', 'client_secret', 'privateKey', 'Authorization', 'cookies'])
      expect(looksSecret(name), name).toBe(true);
    for (const name of ['author', 'authors', 'spinner', 'passenger', 'tokenizer_name', 'total', 'order_id', 'keyword', 'card_title', 'pinned'])
      expect(looksSecret(name), name).toBe(false);
  });

  it('masks every value under such a name, keeping the shape, and secret values everywhere', () => {
    const secrets = { SHOP_PASSWORD: 'hunter22', SHORT: 'abc' };
    const value = {
      password: 'hunter22',
      tokens: ['a1', null, 'b2'],
      credentials: { user: 'demo', expires: 3600 },
      greeting: 'Welcome back, your password hunter22 is set',
      items: [{ name: 'Anchor', price: 12.5, cvv: 123 }],
      short: 'abc stays: secrets under four characters are not replaced',
      empty: null,
    };
    expect(maskExtracted(value, secrets)).toEqual({
      password: '***',
      tokens: ['***', null, '***'],
      credentials: { user: '***', expires: '***' },
      greeting: 'Welcome back, your password *** is set',
      items: [{ name: 'Anchor', price: 12.5, cvv: '***' }],
      short: 'abc stays: secrets under four characters are not replaced',
      empty: null,
    });
    // The value a later step uses is not touched.
    expect(value.password).toBe('hunter22');
  });
});
