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
/** ai_usage.task_type of the check of the new state after a vision action. */
export const VISION_VERIFY_TASK = 'vision_verify';

const VERIFY_SYSTEM = [
  'You check whether an action of an end-to-end test runner had its effect on a web page.',
  'You get two screenshots of the page: the first before the action, the second after it.',
  'The action was performed at a point a vision model chose, because the element\'s selector no longer matched: it may have hit the wrong place.',
  'Answer with one JSON object and nothing else: {"done": true or false, "confidence": <0 to 1>, "reason": "<one short sentence>"}.',
  'done is true when the second screenshot shows the change the action should cause (a new page, dialog or state after a click; the typed text in the intended field after typing; what hovering reveals), false when nothing relevant changed or something else did.',
].join('\n');

const VerifyAnswer = z.object({
  done: z.boolean(),
  confidence: z.number().min(0).max(1).default(0),
  reason: z.string().max(500).default(''),
});

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
  /** Also check the new state after each vision action (a second call; SVC_LLM_VISION_VERIFY). */
  verify?: boolean;
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
    ...(o.verify && {
      async verify({ before, after, action, viewport }) {
        const res = await o.llm.complete(
          { type: VISION_VERIFY_TASK },
          {
            system: VERIFY_SYSTEM,
            prompt: `Both screenshots are ${viewport.width}x${viewport.height} pixels, before and after the action.\nAction: ${action}`,
            images: [before, after].map((png) => ({ mediaType: 'image/png' as const, base64: Buffer.from(png).toString('base64') })),
            json: true,
            temperature: 0,
            maxTokens: 200,
          },
          o.context,
        );
        return parseVerifyAnswer(res.text);
      },
    }),
  };
}

/** The model's verdict on the new state; anything but {done, confidence, reason} JSON is an error. */
export function parseVerifyAnswer(text: string): { done: boolean; confidence: number; reason: string } {
  return parseJsonAnswer(text, VerifyAnswer, 'verdict is not {done, confidence, reason}');
}

/** The first {…} block of a model's text checked against a schema; VisionAnswerError naming what is wrong otherwise. */
function parseJsonAnswer<T extends z.ZodType>(text: string, schema: T, what: string): z.output<T> {
  const block = /\{[\s\S]*\}/.exec(text)?.[0];
  let raw: unknown;
  try {
    raw = block ? JSON.parse(block) : undefined;
  } catch {
    raw = undefined;
  }
  const r = schema.safeParse(raw);
  if (!r.success) throw new VisionAnswerError(`the vision model's ${what} JSON (${r.error.issues[0]?.path.join('.') || 'answer'}: ${r.error.issues[0]?.message})`);
  return r.data;
}

/** The model's answer as a point inside the viewport, or undefined when it found nothing. */
export function parseVisionAnswer(text: string, viewport: { width: number; height: number }): { x: number; y: number; confidence: number } | undefined {
  const a = parseJsonAnswer(text, Answer, 'answer is not {found, x, y, confidence}');
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
  const config = llm?.configured ? parseLlmConfig(env) : undefined;
  if (!llm || !config?.vision) return undefined;
  return (context) => llmVisionLocator({ llm, context, verify: config.visionVerify });
}
