import { z } from 'zod';
import { IsoDateTime, JsonObject, Uuid } from './common.ts';

/** A project activity-feed entry (activity_logs). */
export const ActivityLogSchema = z.object({
  id: Uuid.describe('Entry id'),
  project_id: Uuid.describe('Project the activity belongs to'),
  type: z.string().max(50).describe('Activity kind, e.g. run.started, test.healed, test.created'),
  message: z.string().describe('Human-readable description'),
  metadata: JsonObject.describe('Extra data'),
  timestamp: IsoDateTime.describe('When it happened'),
});
export type ActivityLog = z.output<typeof ActivityLogSchema>;
