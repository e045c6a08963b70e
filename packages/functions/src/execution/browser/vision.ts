/**
 * The vision port used by hybrid execution (spec rule 6): when a locator fails, the driver
 * sends a screenshot of the viewport and a description of the wanted element to a
 * vision-capable model, and acts at the coordinates it answers with.
 */
export interface VisionLocator {
  /**
   * Finds the described element on the screenshot. Coordinates are CSS pixels relative to
   * the viewport's top-left corner (the screenshot is taken at device scale factor 1, so
   * they equal image pixels). Answers undefined when the element is not on the screenshot.
   */
  locate(input: { screenshot: Uint8Array; description: string; viewport: { width: number; height: number } }): Promise<{ x: number; y: number; confidence: number } | undefined>;
  /**
   * Optional visual verification of the new state (spec rule 6): given screenshots before
   * and after acting at the located point, whether the action visibly had its effect. Bound
   * only when asked for (SVC_LLM_VISION_VERIFY): it costs a second model call per fallback.
   */
  verify?(input: { before: Uint8Array; after: Uint8Array; action: string; viewport: { width: number; height: number } }): Promise<{ done: boolean; confidence: number; reason: string }>;
}

/** Step types that may fall back to coordinates: the ones that act at a single point. */
export const VISION_STEP_TYPES = ['click', 'dblclick', 'hover', 'fill'] as const;
export type VisionStepType = (typeof VISION_STEP_TYPES)[number];
