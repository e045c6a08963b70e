import { z } from 'zod';
import { HttpUrl } from './project.ts';
import { IsoDateTime, JsonObject, Uuid } from './common.ts';

/** Discovery session statuses (not shown by the spec; these mirror the run lifecycle). */
export const discoveryStatuses = ['pending', 'running', 'completed', 'failed', 'cancelled'] as const;
export const DiscoveryStatus = z.enum(discoveryStatuses).describe('Discovery status: pending, running, completed, failed or cancelled');

/** An auto-discovery crawl of an application (discovery_sessions). */
export const DiscoverySessionSchema = z.object({
  id: Uuid.describe('Session id'),
  project_id: Uuid.describe('Project being discovered'),
  name: z.string().describe('Session name'),
  status: DiscoveryStatus,
  start_url: z.string().describe('URL the crawl started from'),
  mode: z.string().describe('Discovery mode, e.g. dom_only or git_aware'),
  strategy: z.string().describe('Crawl strategy, e.g. breadth_first, depth_first, priority'),
  max_pages: z.number().int().positive().describe('Page budget'),
  page_graph: JsonObject.describe('Pages (nodes) and links (edges) found'),
  quality_score: z.number().nullable().describe('Overall quality score of the discovered app, or null until completed'),
  insights: JsonObject.describe('Findings: risky areas, untested flows, ...'),
  created_at: IsoDateTime.describe('When the session started'),
  completed_at: IsoDateTime.nullable().describe('When the session finished, or null'),
});
export type DiscoverySession = z.output<typeof DiscoverySessionSchema>;

/** POST /api/v1/discovery/start body. */
export const DiscoveryStartInput = z.strictObject({
  project_id: Uuid.describe('Project to discover'),
  start_url: HttpUrl.optional().describe("URL to start from; defaults to the project's app_url"),
  name: z.string().trim().min(1).max(255).optional().describe('Session name'),
  mode: z.enum(['dom_only', 'git_aware']).default('dom_only').describe('dom_only (live DOM) or git_aware (also reads the repository)'),
  strategy: z.enum(['breadth_first', 'depth_first', 'priority']).default('priority').describe('Crawl order (default priority)'),
  max_pages: z.number().int().min(1).max(500).default(50).describe('Page budget, 1..500 (default 50)'),
});
export type DiscoveryStartInput = z.output<typeof DiscoveryStartInput>;

/** A page found by discovery (discovered_pages). */
export const DiscoveredPageSchema = z.object({
  id: Uuid.describe('Page id'),
  discovery_session_id: Uuid.describe('Session that found the page'),
  url: z.string().describe('Page URL'),
  page_type: z.string().describe('Kind of page, e.g. landing, form, list, detail, auth, checkout'),
  screenshot_url: z.string().nullable().describe('Screenshot reference, or null'),
  element_count: z.number().int().nonnegative().describe('Interactive elements found'),
  importance_score: z.number().describe('How important the page is to test (higher first)'),
  risk_score: z.number().describe('How likely the page is to break (higher first)'),
});
export type DiscoveredPage = z.output<typeof DiscoveredPageSchema>;

/** An interactive element found on a page (discovered_elements). */
export const DiscoveredElementSchema = z.object({
  id: Uuid.describe('Element id'),
  page_id: Uuid.describe('Page the element is on'),
  selector: z.string().describe('Best selector for the element'),
  category: z.string().describe('Kind of element, e.g. button, link, input, form, navigation'),
  label: z.string().nullable().describe('Accessible name or visible text, or null'),
  importance_score: z.number().describe('How important the element is to test'),
  stability_score: z.number().describe('How stable the selector is expected to be'),
});
export type DiscoveredElement = z.output<typeof DiscoveredElementSchema>;

/** A user flow inferred by discovery (discovered_flows). */
export const DiscoveredFlowSchema = z.object({
  id: Uuid.describe('Flow id'),
  discovery_session_id: Uuid.describe('Session that found the flow'),
  name: z.string().describe('Flow name, e.g. "Sign up"'),
  flow_type: z.string().describe('Kind of flow, e.g. authentication, checkout, crud, search, navigation'),
  steps: z.array(JsonObject).describe('Ordered steps of the flow'),
  complexity_score: z.number().describe('How complex the flow is'),
  validated: z.boolean().describe('Whether the flow was replayed successfully'),
});
export type DiscoveredFlow = z.output<typeof DiscoveredFlowSchema>;
