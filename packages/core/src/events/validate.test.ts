import { describe, expect, it } from 'vitest';
import { createEvent } from '../contracts/events.ts';
import { checkEvent, EventRejectedError } from './validate.ts';
import { MAX_EVENT_BYTES } from './bus-event.ts';

const id = () => crypto.randomUUID();
const good = () => createEvent({ type: 'codebase.ingested', source: 'svc.api', tenant_id: 't', payload: { project_id: id(), codebase_path: '/repo' } });
const reason = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(EventRejectedError);
    return (e as EventRejectedError).reason;
  }
  throw new Error('expected a rejection');
};

describe('checkEvent', () => {
  it('accepts objects and JSON text, applying defaults', () => {
    const e = good();
    expect(checkEvent(e)).toEqual(e);
    const { metadata: _m, ...noMeta } = e;
    expect(checkEvent(JSON.stringify(noMeta)).metadata).toEqual({});
  });

  it('names the reason for each kind of bad event', () => {
    expect(reason(() => checkEvent('{not json'))).toBe('malformed_json');
    expect(reason(() => checkEvent({ ...good(), event_type: 'test.deleted' }))).toBe('unknown_type');
    const { tenant_id: _t, ...missing } = good();
    expect(reason(() => checkEvent(missing))).toBe('invalid_envelope');
    expect(reason(() => checkEvent({ ...good(), event_id: 'not-a-uuid' }))).toBe('invalid_envelope');
    expect(reason(() => checkEvent({ ...good(), payload: { project_id: id() } }))).toBe('invalid_payload');
    expect(() => checkEvent({ ...good(), payload: { project_id: id() } })).toThrow(/codebase_path/);
  });

  it('rejects events over the 256 KB bus-entry limit, counting UTF-8 bytes', () => {
    const big = { ...good(), payload: { project_id: id(), codebase_path: '/r', notes: 'é'.repeat(MAX_EVENT_BYTES / 2) } };
    expect(reason(() => checkEvent(big))).toBe('too_large');
    const fits = { ...good(), payload: { project_id: id(), codebase_path: '/r', notes: 'x'.repeat(MAX_EVENT_BYTES - 2000) } };
    expect(checkEvent(fits).payload.notes).toHaveLength(MAX_EVENT_BYTES - 2000);
  });
});
