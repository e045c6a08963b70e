import { z } from 'zod';
import { EventEnvelopeSchema, eventTypes, payloadSchemas, type EventEnvelope } from '../contracts/events.ts';
import { busEntrySize, MAX_EVENT_BYTES, toBusEntry } from './bus-event.ts';

/** Why an event was refused at publish or at consume time (stable strings; logged and dead-lettered). */
export type EventRejectionReason = 'malformed_json' | 'invalid_envelope' | 'unknown_type' | 'invalid_payload' | 'too_large';

/**
 * An event that can never be processed, whatever the retries: the producer learns at
 * publish time, and a consumer that receives one dead-letters it without retrying.
 */
export class EventRejectedError extends Error {
  readonly code = 'EVENT_REJECTED';
  constructor(
    readonly reason: EventRejectionReason,
    message: string,
  ) {
    super(message);
    this.name = 'EventRejectedError';
  }
}

function describe(err: z.ZodError): string {
  return err.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
}

/**
 * Parse and check an event from anywhere (object or JSON text): envelope, known type,
 * payload schema of that type, and the 256 KB size limit of a bus entry. Returns the
 * parsed envelope (defaults applied) or throws EventRejectedError naming the reason.
 */
export function checkEvent(input: unknown, maxBytes = MAX_EVENT_BYTES): EventEnvelope {
  let data = input;
  if (typeof input === 'string') {
    try {
      data = JSON.parse(input);
    } catch (err) {
      throw new EventRejectedError('malformed_json', `event is not valid JSON: ${(err as Error).message}`);
    }
  }
  const type = (data as { event_type?: unknown } | null)?.event_type;
  if (typeof type === 'string' && !(eventTypes as readonly string[]).includes(type)) {
    throw new EventRejectedError('unknown_type', `unknown event_type "${type}"`);
  }
  const envelope = EventEnvelopeSchema.safeParse(data);
  if (!envelope.success) throw new EventRejectedError('invalid_envelope', `invalid event envelope: ${describe(envelope.error)}`);
  const payload = payloadSchemas[envelope.data.event_type].safeParse(envelope.data.payload);
  if (!payload.success) {
    throw new EventRejectedError('invalid_payload', `invalid ${envelope.data.event_type} payload: ${describe(payload.error)}`);
  }
  const event: EventEnvelope = { ...envelope.data, payload: payload.data as Record<string, unknown> };
  const size = busEntrySize(toBusEntry(event));
  if (size > maxBytes) throw new EventRejectedError('too_large', `event is ${size} bytes; the limit is ${maxBytes}`);
  return event;
}
