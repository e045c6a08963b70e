import { describe, expect, it } from 'vitest';
import {  } from './test-support.ts';
import { ErrorBodySchema } from './error-body.ts';

describe('error body', () => {
  it('accepts the one error shape', () => {
    expect(ErrorBodySchema.safeParse({ error: { code: 'NOT_FOUND', message: 'x' } }).success).toBe(true);
    expect(ErrorBodySchema.safeParse({ error: { code: 'NOT_FOUND' } }).success).toBe(false);
  });
});
