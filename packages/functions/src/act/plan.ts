import type { Step } from '@svc/core/contracts/steps';
import { validationFailed } from '@svc/core/errors';
import { resolveAppUrl } from '../api/resolve-app-url.ts';

/** A URL with a scheme (anything else is a path). */
const ABSOLUTE = /^[a-z][a-z0-9+.-]*:/i;

export interface ActPlan {
  /** Where the browser starts (absolute). */
  startUrl: string;
  /** The steps to perform: a goto to the start, unless the first given step is one. */
  steps: Step[];
}

/**
 * The one-off test of an act call: the given steps, then the instruction's, after a goto
 * to `url` — or, with no `url`, starting at the first step when it is a goto. Every URL
 * the steps open is checked (`allow`: the project's allowed hosts) before any browser
 * goes there; request and sql steps are refused, since they would reach hosts from the
 * server without that check. Errors name the request field a step came from.
 */
export function planActions(o: { url?: string; appUrl?: string; given: Step[]; fromInstruction: Step[]; allow: (url: string, field: string) => void }): ActPlan {
  const all = [...o.given.map((step, i) => ({ step, field: `steps.${i}` })), ...o.fromInstruction.map((step) => ({ step, field: 'instruction' }))];
  for (const { step, field } of all) {
    if (step.type === 'request' || step.type === 'sql') throw validationFailed([{ path: field === 'instruction' ? field : `${field}.type`, message: `act performs browser steps; a ${step.type} step is not run here (put it in a test: POST /api/tests)` }]);
  }
  const urlField = (field: string) => (field === 'instruction' ? field : `${field}.url`);
  /** Where a goto goes, checked first: the host must be known before the run (a variable there would be filled in after the check), and a path resolves as the browser resolves it (against the app_url). */
  const target = (url: string, field: string): string => {
    if (/^\s*\{\{/.test(url) || /^[a-z][a-z0-9+.-]*:\/\/[^/]*\{\{/i.test(url)) throw validationFailed([{ path: field, message: 'a variable may not stand for the host of a URL here: the host is checked against the allowed hosts before the browser goes there' }]);
    const checked = resolveAppUrl(url, o.appUrl, field);
    return o.appUrl && !ABSOLUTE.test(url) ? new URL(url, o.appUrl).href : checked;
  };
  const first = all[0]?.step;
  const startsWithGoto = o.url === undefined && first?.type === 'goto';
  const startUrl = startsWithGoto ? target(first.url, urlField(all[0].field)) : resolveAppUrl(o.url, o.appUrl, 'url');
  o.allow(startUrl, startsWithGoto ? urlField(all[0].field) : 'url');
  for (const { step, field } of all.slice(startsWithGoto ? 1 : 0)) {
    if (step.type === 'goto') o.allow(target(step.url, urlField(field)), urlField(field));
  }
  const steps = all.map((a) => a.step);
  return { startUrl, steps: startsWithGoto ? steps : [{ type: 'goto', url: startUrl }, ...steps] };
}
