import { describe, expect, it } from 'vitest';
import type { Logger } from '../ports/logger.ts';
import { skippingPublisher } from './in-process-bus.ts';
import { validatingPublisher } from './validating-publisher.ts';
import { codebaseIngested, eventSources } from './producers.ts';

describe('the publishing path', () => {
  it('with no bus configured, checks the event, then skips it with a debug log', async () => {
    const lines: [string, string, Record<string, unknown> | undefined][] = [];
    const logger: Logger = {
      debug: (m, f) => void lines.push(['debug', m, f]),
      info: (m, f) => void lines.push(['info', m, f]),
      warn: (m, f) => void lines.push(['warn', m, f]),
      error: (m, f) => void lines.push(['error', m, f]),
    };
    const published: string[] = [];
    const pub = validatingPublisher(skippingPublisher(logger), { onPublished: (e) => void published.push(e.event_type) });
    const e = codebaseIngested({ source: eventSources.api, tenant_id: 't' }, { project_id: crypto.randomUUID(), codebase_path: '/r' });
    await pub.publish(e);
    expect(lines).toEqual([['debug', 'no event bus configured; event not published', { event_type: 'codebase.ingested', event_id: e.event_id }]]);
    expect(published).toEqual(['codebase.ingested']);
    await expect(pub.publish({ ...e, payload: {} })).rejects.toMatchObject({ reason: 'invalid_payload' });
    expect(lines).toHaveLength(1);
  });
});
