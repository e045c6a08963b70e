import { api } from './api.js';
import { element, messageOf, setMessage } from './dom.js';

/**
 * The "Visual change" block under a failed test's row in the run view: for each visual
 * assertion whose screenshot differed from its baseline, the baseline, this run's screenshot
 * and the difference (differing pixels in red), side by side, from the run's artifacts; and
 * for members, "Accept as baseline", which makes this run's screenshot the baseline
 * (POST /api/visual/baselines with the result's proposed_hash; docs/visual.md). A change
 * that is intended is accepted where it is seen, not through the API.
 *
 * @typedef {{ name: string, status: string, diff_pixels?: number, diff_ratio?: number, actual?: string, baseline?: string, diff?: string, proposed_hash?: string, message?: string }} VisualOutcome
 * @typedef {import('./run-artifacts.js').RunArtifact} RunArtifact
 */

/** The artifact a result's blob key names (same file in the case's folder). @param {RunArtifact[]} artifacts @param {string | undefined} key */
function artifactFor(artifacts, key) {
  if (!key) return undefined;
  const file = key.split('/').at(-1);
  return artifacts.find((a) => a.kind === 'visual' && a.name.split('/').at(-1) === file);
}

/**
 * One image, fetched with the session (an <img src> could not send the organization header);
 * its object URL is released once the image has decoded (it stays on screen).
 * @param {RunArtifact | undefined} artifact @param {string} caption @param {string} alt @param {string} testid
 */
function figure(artifact, caption, alt, testid) {
  const fig = element('figure', { className: 'visual-change-image', testid });
  const img = /** @type {HTMLImageElement} */ (element('img', {}));
  img.alt = alt;
  fig.append(img, element('figcaption', { className: 'muted', text: caption }));
  if (!artifact) {
    img.replaceWith(element('p', { className: 'muted', text: 'Image not available.' }));
    return fig;
  }
  void api(artifact.url, { as: 'blob' })
    .then((blob) => {
      const url = URL.createObjectURL(blob);
      img.addEventListener('load', () => URL.revokeObjectURL(url), { once: true });
      img.addEventListener('error', () => URL.revokeObjectURL(url), { once: true });
      img.src = url;
    })
    .catch(() => img.replaceWith(element('p', { className: 'muted', text: 'Image not available.' })));
  return fig;
}

/** "1,688 of 921,600 pixels (0.18%)" or what is known of it. @param {VisualOutcome} v */
function howMuch(v) {
  if (typeof v.diff_pixels !== 'number') return 'differs from its baseline';
  const ratio = typeof v.diff_ratio === 'number' ? ` (${(v.diff_ratio * 100).toFixed(2)}% of the image)` : '';
  return `${v.diff_pixels.toLocaleString('en')} pixels differ${ratio}`;
}

/**
 * The block for a failed result, or undefined when none of its visual assertions differed.
 * @param {{ test_id: string, metadata: { visual?: unknown } }} result
 * @param {RunArtifact[]} artifacts the case's
 * @param {{ canAccept: boolean, testName: string }} options
 */
export function visualChangeBlock(result, artifacts, { canAccept, testName }) {
  const changed = /** @type {VisualOutcome[]} */ (Array.isArray(result.metadata.visual) ? result.metadata.visual : []).filter((v) => v && v.status === 'differs');
  if (!changed.length) return undefined;
  const block = element('div', { className: 'visual-change', testid: 'visual-change' });
  for (const v of changed) {
    const part = element('div', { className: 'visual-change-item', testid: 'visual-change-item' });
    part.append(element('p', { className: 'visual-change-title', testid: 'visual-change-title', text: `Visual change · ${v.name}: ${howMuch(v)}` }));
    const images = element('div', { className: 'visual-change-images' });
    images.append(
      figure(artifactFor(artifacts, v.baseline), 'Baseline', `Baseline ${v.name}`, 'visual-change-baseline'),
      figure(artifactFor(artifacts, v.actual), 'This run', `${v.name} in this run`, 'visual-change-actual'),
      figure(artifactFor(artifacts, v.diff), 'Difference (red)', `What differs in ${v.name}`, 'visual-change-diff'),
    );
    part.append(images);
    if (canAccept && v.proposed_hash) part.append(...acceptControls(result.test_id, v, testName));
    block.append(part);
  }
  return block;
}

/**
 * "Accept as baseline" and what it said.
 * @param {string} testId @param {VisualOutcome} v @param {string} testName
 */
function acceptControls(testId, v, testName) {
  const button = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid: 'visual-change-accept', text: 'Accept as baseline' }));
  button.type = 'button';
  button.setAttribute('aria-label', `Accept as baseline: this run's screenshot of ${v.name} in ${testName}`);
  const said = element('p', { className: 'muted', testid: 'visual-change-accept-status' });
  said.hidden = true;
  button.addEventListener('click', async () => {
    button.disabled = true;
    said.className = 'muted';
    said.removeAttribute('role');
    setMessage(said);
    try {
      await api('/api/visual/baselines', { method: 'POST', body: { test_id: testId, name: v.name, screenshot_hash: v.proposed_hash } });
      setMessage(said, `Accepted: the next run compares ${v.name} with this screenshot.`);
    } catch (err) {
      button.disabled = false;
      said.className = 'field-error';
      said.setAttribute('role', 'alert');
      setMessage(said, `Not accepted: ${messageOf(err)}`);
    }
  });
  return [button, said];
}
