import type { Healer } from '@svc/core/run-graph/healer';

/**
 * A Healer for tests: for a click whose selector was not found, it proposes the page's
 * real button (#buy-now) — a locator-only fix — with the given confidence. It answers
 * "cannot heal" for anything else. (The product's healer is the healing issue's; the run
 * graph only talks to the port.)
 */
export function selectorHealer(confidence = 0.9): Healer & { calls: number } {
  const healer = {
    calls: 0,
    async heal(f: Parameters<Healer['heal']>[0]) {
      healer.calls++;
      const i = f.test.steps.findIndex((s) => s.type === 'click' && s.selector !== '#buy-now');
      if (i < 0) return { healed: false as const, reason: 'no click step with a replaceable selector' };
      const test = structuredClone(f.test);
      const from = (test.steps[i] as { selector: string }).selector;
      (test.steps[i] as { selector: string }).selector = '#buy-now';
      return { healed: true as const, patch: { test, changes: [{ step: i, field: 'selector', from, to: '#buy-now' }], confidence, kind: 'locator' as const }, usage: { input_tokens: 100, output_tokens: 20, cost_usd: 0.001 } };
    },
  };
  return healer;
}
