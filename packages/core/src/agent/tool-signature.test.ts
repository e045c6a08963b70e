import { describe, expect, it } from 'vitest';
import { toolSignature } from './tool-signature.ts';

describe('toolSignature', () => {
  it('gives each field its type, ? when optional, small enums and the first sentence of its description', () => {
    const sig = toolSignature({
      type: 'object',
      required: ['project_id'],
      properties: {
        project_id: { type: 'string', format: 'uuid', description: 'Project to run. Another sentence the model need not read.' },
        retries: { type: 'integer', minimum: 0, maximum: 5, description: 'Times a failed test runs again' },
        format: { type: 'string', enum: ['json', 'md', 'junit'] },
        status: { type: 'string', enum: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'] },
        tags: { type: 'array', items: { type: 'string' } },
        id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      },
    });
    expect(sig).toBe('{ project_id: string (uuid) — Project to run.; retries?: integer 0..5 — Times a failed test runs again; format?: "json"|"md"|"junit"; status?: string; tags?: string[]; id?: string or integer }');
  });

  it('keeps what a list of objects says of its kinds: that is how the model learns the step types', () => {
    const sig = toolSignature({
      type: 'object',
      properties: { steps: { type: 'array', description: 'Ordered steps.', items: { type: 'object', properties: { type: { type: 'string', enum: ['goto', 'click'] } }, description: 'One of: goto {url}: Open a URL; click {selector}: Click' } } },
    });
    expect(sig).toBe('{ steps?: { type?: "goto"|"click" }[] — Ordered steps. One of: goto {url}: Open a URL; click {selector}: Click }');
  });

  it('is {} for a tool without arguments, and cuts a long description', () => {
    expect(toolSignature({ type: 'object', properties: {} })).toBe('{}');
    const long = toolSignature({ type: 'object', properties: { q: { type: 'string', description: 'x'.repeat(500) } } });
    expect(long).toMatch(/^\{ q\?: string — x{89}… \}$/);
  });
});
