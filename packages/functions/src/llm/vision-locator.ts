/**
 * The vision fallback's model provider (issue #3 item 4, spec rule 6): implements the
 * driver's VisionLocator port with the LlmClient. The screenshot goes to the model as an
 * image (each adapter sends it in its own wire format), the model answers
 * {found, x, y, confidence}; the answer is checked (JSON shape, coordinates inside the
 * viewport) before the driver acts on it. Bound only when a model is configured and
 * SVC_LLM_VISION is on (visionLocatorFromEnv); otherwise the driver gets no port and a
 * broken locator stays a locator failure, as the spec says.
 */
import { z } from 'zod';
import type { LlmCallContext, LlmClient } from '@svc/core/llm/types';
import type { VisionLocator } from '../execution/browser/vision.ts';
import { parseLlmConfig } from './config.ts';

/** ai_usage.task_type of vision calls (MODERATE by default: images need a mid-tier model). */
export const VISION_TASK = 'vision_locate';

const SYSTEM = [
  'You locate one element on a screenshot of a web page for an end-to-end test runner.',
  'Coordinates are in screenshot pixels from the top-left corner: x to the right, y down.',
  'Answer with one JSON object and nothing else:',
  '{"found": true, "x": <center x>, "y": <center y>, "confidence": <0 to 1>} when the element is visible on the screenshot,',
  '{"found": false, "confidence": 0} when it is not. Do not guess: an element you cannot see is not found.',
].join('\n');

const Answer = z.object({
  found: z.boolean(),
  x: z.number().finite().optional(),
  y: z.number().finite().optional(),
  confidence: z.number().min(0).max(1).default(0),
});

/** Thrown for answers the driver must not act on; the fallback reports the message. */
export class VisionAnswerError extends Error {
  override name = 'VisionAnswerError';
}

export interface LlmVisionLocatorOptions {
  llm: LlmClient;
  /** Who pays (organization) and what the calls belong to (run, test). */
  context: LlmCallContext;
}

/** A VisionLocator backed by the LlmClient's router, budgets and usage records. */
export function llmVisionLocator(o: LlmVisionLocatorOptions): VisionLocator {
  return {
    async locate({ screenshot, description, viewport }) {
      const res = await o.llm.complete(
        { type: VISION_TASK },
        {
          system: SYSTEM,
          prompt: `The screenshot is ${viewport.width}x${viewport.height} pixels.\nFind: ${description}`,
          images: [{ mediaType: 'image/png', base64: Buffer.from(screenshot).toString('base64') }],
          json: true,
          temperature: 0,
          maxTokens: 200,
        },
        o.context,
      );
      return parseVisionAnswer(res.text, viewport);
    },
  };
}

/** The model's answer as a point inside the viewport, or undefined when it found nothing. */
export function parseVisionAnswer(text: string, viewport: { width: number; height: number }): { x: number; y: number; confidence: number } | undefined {
  const block = /\{[\s\S]*\}/.exec(text)?.[0];
  let raw: unknown;
  try {
    raw = block ? JSON.parse(block) : undefined;
  } catch {
    raw = undefined;
  }
  const r = Answer.safeParse(raw);
  if (!r.success) throw new VisionAnswerError(`the vision model's answer is not {found, x, y, confidence} JSON (${r.error.issues[0]?.path.join('.') || 'answer'}: ${r.error.issues[0]?.message})`);
  const a = r.data;
  if (!a.found) return undefined;
  if (a.x === undefined || a.y === undefined) throw new VisionAnswerError('the vision model said found but gave no x and y');
  if (!(a.x >= 0 && a.y >= 0 && a.x < viewport.width && a.y < viewport.height)) {
    throw new VisionAnswerError(`the vision model answered (${a.x}, ${a.y}), outside the ${viewport.width}x${viewport.height} viewport`);
  }
  return { x: a.x, y: a.y, confidence: a.confidence };
}

/**
 * For entry points: a factory of VisionLocators per run when a model is configured and
 * SVC_LLM_VISION is on, else undefined (the driver then runs without the fallback).
 * A broken LLM configuration throws here as in createLlmFromEnv, naming the variable.
 */
export function visionLocatorFromEnv(env: Record<string, string | undefined>, llm: LlmClient | undefined): ((context: LlmCallContext) => VisionLocator) | undefined {
  if (!llm?.configured || !parseLlmConfig(env)?.vision) return undefined;
  return (context) => llmVisionLocator({ llm, context });
}
