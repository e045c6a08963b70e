import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { EventPublisher } from '@svc/core/ports/events';
import type { Logger } from '@svc/core/ports/logger';
import { skippingPublisher } from '@svc/core/events/in-process-bus';
import { validatingPublisher } from '@svc/core/events/validating-publisher';
import { EventBridgePublisher } from '../aws/events/eventbridge-publisher.ts';

/**
 * Domain events of the Task Lambdas (codebase.analyzed, healing.completed): the bus named
 * by SVC_EVENT_BUS_NAME, as for the API function; without it every event is checked and
 * dropped with a debug log. Either way a malformed event is refused where it is made.
 */
export function taskEventPublisher(env: Record<string, string | undefined>, region: string, logger: Logger): EventPublisher {
  const busName = env.SVC_EVENT_BUS_NAME?.trim();
  if (!busName) return validatingPublisher(skippingPublisher(logger));
  return validatingPublisher(new EventBridgePublisher({ client: new EventBridgeClient({ region }), busName, logger }));
}
