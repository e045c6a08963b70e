import { describe, it, expect } from 'vitest';
import type { Fingerprint } from '@svc/core/contracts/fingerprint';
import { rankCandidates } from '@svc/core/healing/rank';
import { prepare } from '@svc/core/healing/prepare';
import { DEFAULT_MODEL } from '@svc/core/healing/model-constants';
import { signInPage } from './pages.ts';

/**
 * The runtime calibration (fitted on real-driver captures of generated redesigns, see
 * bench/healing-runtime-capture.ts): fingerprints recorded by the runner carry labels,
 * roles and test ids, and a heal that rests on them is trusted; a look-alike of a removed
 * element is not.
 */
const THRESHOLD = 0.8;
const old = signInPage();
const password = old.find((f) => f.id === 'password')!;

/** The sign-in page after a redesign: the password field has a new id, classes and position, same name and label. */
const redesigned = (withPassword = true): Fingerprint[] =>
  signInPage({ buttonId: 'submit-button', shift: 30 })
    .filter((f) => withPassword || f.id !== 'password')
    .map((f) => (f.id === 'password' ? { ...f, id: 'user-password', classes: ['field', 'field--password'], idXpath: '//*[@id="user-password"]' } : f));

/** A table whose rows each end with the same "Delete" button. */
function rows(names: string[]): Fingerprint[] {
  return names.flatMap((name, i) => [
    { tag: 'td', text: name, role: 'cell', accessibleName: name, xpath: `/html/body/table/tbody/tr[${i + 1}]/td[1]`, box: { x: 20, y: 100 + 40 * i, width: 200, height: 30 }, visible: true },
    {
      tag: 'button', text: 'Delete', role: 'button', accessibleName: 'Delete', classes: ['btn', 'delete'], isButton: true, attributes: { class: 'btn delete' },
      xpath: `/html/body/table/tbody/tr[${i + 1}]/td[2]/button[1]`, box: { x: 240, y: 100 + 40 * i, width: 80, height: 30 }, neighborText: [name], visible: true,
    },
  ]);
}

describe('runtime calibration', () => {
  it('is the committed model’s, and applies to fingerprints a runner captured', () => {
    expect(DEFAULT_MODEL.runtimeCalibration).toBeDefined();
    expect(prepare(password).runtime).toBe(true);
    // A sparse record (no role, accessible name, test id or attribute map) keeps the dev-set calibration.
    expect(prepare({ tag: 'input', id: 'password', name: 'password', xpath: '/html/body/form/input[2]' }).runtime).toBe(false);
  });

  it('heals a renamed, moved field that kept its name and label, at confidence ≥ 0.8', () => {
    const page = redesigned();
    const [best] = rankCandidates(password, page);
    expect(page[best.index].id).toBe('user-password');
    expect(best.confidence).toBeGreaterThanOrEqual(THRESHOLD);
  });

  it('does not heal the removed field onto its neighbour', () => {
    const page = redesigned(false);
    const [best] = rankCandidates(password, page);
    expect(best.confidence).toBeLessThan(THRESHOLD);
  });

  it('does not heal a removed row’s button onto a look-alike in another row', () => {
    const before = rows(['Ana', 'Ben', 'Chen']);
    const target = before[3]; // Ben's "Delete"
    const after = rows(['Ana', 'Chen']);
    const [best] = rankCandidates(target, after);
    expect(after[best.index].text).toBe('Delete');
    expect(best.confidence).toBeLessThan(THRESHOLD);
  });

  it('does not take a radio button’s shared name as its identity', () => {
    const radio = (value: string, i: number): Fingerprint => ({
      tag: 'input', type: 'radio', name: 'plan', id: `plan-${value}`, value, role: 'radio', accessibleName: value[0].toUpperCase() + value.slice(1), attributes: { type: 'radio', name: 'plan' },
      xpath: `/html/body/form/fieldset/input[${i + 1}]`, box: { x: 20 + 100 * i, y: 300, width: 16, height: 16 }, neighborText: ['Plan'], visible: true,
    });
    const before = ['free', 'pro', 'team'].map(radio);
    const after = ['free', 'team'].map(radio).map((f) => ({ ...f, id: `option-${f.value}` }));
    const [best] = rankCandidates(before[1], after);
    expect(best.confidence).toBeLessThan(THRESHOLD);
  });
});
