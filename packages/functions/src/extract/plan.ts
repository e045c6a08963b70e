import type { Step } from '@svc/core/contracts/steps';
import { validationFailed } from '@svc/core/errors';
import { planActions, type ActPlan } from '../act/plan.ts';

/**
 * The one-off test of an extract call: act's plan for the preceding steps (the start URL
 * and every goto checked against the project's allowed hosts; request and sql steps
 * refused), then — for fields — the extract step itself, so the runner reads them where
 * the steps ended. An instruction is answered after the run, from the final page's text,
 * by the API's model (the browser function has none). For the same reason an extract step
 * with an instruction among the preceding steps is refused: only the call's own
 * extraction may use the model.
 */
export function planExtraction(o: { url?: string; appUrl?: string; given: Step[]; fields?: Extract<Step, { type: 'extract' }>['fields']; allow: (url: string, field: string) => void }): ActPlan & { extractIndex: number | null } {
  o.given.forEach((step, i) => {
    if (step.type === 'extract' && step.instruction !== undefined) throw validationFailed([{ path: `steps.${i}.instruction`, message: 'an extract step with an instruction is not run among the steps here: give the instruction and schema of this call instead' }]);
  });
  const plan = planActions({ url: o.url, appUrl: o.appUrl, given: o.given, fromInstruction: [], allow: o.allow });
  if (!o.fields) return { ...plan, extractIndex: null };
  return { ...plan, steps: [...plan.steps, { type: 'extract', fields: o.fields }], extractIndex: plan.steps.length };
}
