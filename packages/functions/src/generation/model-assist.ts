import type { LlmClient } from '@svc/core/llm/types';
import type { PlainLanguageResult } from '@svc/core/intelligence/generation/plain-language';
import { lineOfStep, pageUrlFor, repairWithModel, rewriteWithModel, type ModelAssisted, type Repaired } from '@svc/core/intelligence/generation/model-assist';
import type { GenerationExecutor } from './execute-once.ts';

export interface AssistInput {
  llm?: LlmClient;
  executor?: GenerationExecutor;
  parsed: PlainLanguageResult;
  organizationId: string;
  projectId: string;
  baseUrl?: string;
  /** The request's browser batch; without one the page is not opened. */
  batch?: string;
}

export interface Assisted extends ModelAssisted {
  /** The page whose elements went to the model, or why none did. */
  page?: { url: string; elements: number; error?: string };
}

/**
 * The glue between the route and core's model-assist: only when the grammar left lines
 * and a model is configured, open the start page once to list its elements (a failure
 * there only costs the model that context), then ask for the rewrite.
 */
export async function assistWithModel(i: AssistInput): Promise<Assisted> {
  if (!i.llm?.configured || i.parsed.not_understood.length === 0) return { result: i.parsed };
  const { url, elements, page } = await pageContext(i, pageUrlFor(i.parsed, i.baseUrl));
  const assisted = await rewriteWithModel(i.llm, i.parsed, { page: { url, elements }, ctx: { organizationId: i.organizationId }, allowedOrigins: origins(i.baseUrl) });
  return { ...assisted, ...(page && { page }) };
}

/**
 * After the one run failed to find exactly one element for a step: the line behind it
 * goes back to the model with the failure and the elements of the page it acts on.
 */
export async function repairWithModelAfterFailure(i: AssistInput & { failure: { step: number; error: string } }): Promise<Repaired & Pick<Assisted, 'page'>> {
  if (!i.llm?.configured) return { result: i.parsed };
  const owner = lineOfStep(i.parsed, i.failure.step);
  if (!owner) return { result: i.parsed };
  const { url, elements, page } = await pageContext(i, pageUrlFor(i.parsed, i.baseUrl, owner.line));
  const repaired = await repairWithModel(i.llm, i.parsed, i.failure, { page: { url, elements }, ctx: { organizationId: i.organizationId }, allowedOrigins: origins(i.baseUrl) });
  return { ...repaired, ...(page && { page }) };
}

/** Opens the page in the request's browser to list its elements; a failure only costs the model that context. */
async function pageContext(i: AssistInput, url: string | undefined) {
  if (!url || !i.executor?.browser || !i.batch) return { url };
  try {
    const elements = await i.executor.inspect(url, { organizationId: i.organizationId, projectId: i.projectId, batch: i.batch });
    return { url, elements, page: { url, elements: elements.length } };
  } catch (err) {
    return { url, page: { url, elements: 0, error: `the page could not be opened to list its elements: ${(err as Error).message}` } };
  }
}

const origins = (baseUrl?: string) => (baseUrl ? [safeOrigin(baseUrl)].filter((o): o is string => !!o) : []);

function safeOrigin(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
