import { api } from './api.js';
import { element, messageOf, setMessage } from './dom.js';
import { openTraceViewer } from './trace-viewer.js';

/**
 * What a failed test's row offers: its Playwright trace, viewed in the trace viewer this
 * server hosts or downloaded (opens in `npx playwright show-trace`), its failure
 * screenshot and the HTML of the page it failed on (saved, never opened here), from
 * GET /api/runs/{id}/artifacts. Fetched with the session's headers — a plain link could
 * not send the organization header. Artifacts the retention deleted are not offered.
 *
 * @typedef {{ name: string, kind: string, test_id: string, available: boolean, url: string }} RunArtifact
 */

/**
 * The run's stored artifacts by case (`<test id>` or `<test id>[n]`); none when the server
 * keeps no artifacts (501) or the list cannot be read — the rows then offer no downloads.
 * @param {string} runId
 * @returns {Promise<Map<string, RunArtifact[]>>}
 */
export async function runArtifactsByCase(runId) {
  /** @type {Map<string, RunArtifact[]>} */
  const byCase = new Map();
  try {
    /** @type {{ items: RunArtifact[] }} */
    const list = await api(`/api/runs/${encodeURIComponent(runId)}/artifacts`);
    for (const a of list.items) if (a.available) byCase.set(a.test_id, [...(byCase.get(a.test_id) ?? []), a]);
  } catch {
    // No downloads offered: the run's results still show.
  }
  return byCase;
}

/**
 * Buttons that view a failed case's trace and download it, its failure screenshot and its
 * page's HTML; a failure is said in `status`.
 * @param {RunArtifact[]} artifacts the case's
 * @param {string} name the case's name, for the buttons' labels (each starts with the button's
 *   visible text, so a voice-control user saying "Page HTML" finds it: WCAG 2.5.3)
 * @param {HTMLElement} status
 * @param {(blob: Blob, filename: string) => void} save
 */
export function artifactButtons(artifacts, name, status, save) {
  const offered = [
    { artifact: artifacts.find((a) => a.kind === 'trace'), what: 'trace', text: 'Download trace', label: `Download trace: the Playwright trace of ${name}`, testid: 'test-result-trace' },
    { artifact: artifacts.find((a) => a.kind === 'screenshot' && a.name.endsWith('/failure.png')), what: 'screenshot', text: 'Screenshot', label: `Screenshot: download the failure screenshot of ${name}`, testid: 'test-result-screenshot' },
    { artifact: artifacts.find((a) => a.kind === 'dom_snapshot'), what: 'page HTML', text: 'Page HTML', label: `Page HTML: download the page ${name} failed on`, testid: 'test-result-dom' },
  ];
  const trace = offered[0].artifact;
  const view = trace ? [viewTraceButton(trace, name, status)] : [];
  return [...view, ...offered.filter((o) => o.artifact).map(({ artifact, what, text, label, testid }) => {
    const a = /** @type {RunArtifact} */ (artifact);
    const button = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid, text }));
    button.type = 'button';
    button.setAttribute('aria-label', label);
    button.addEventListener('click', async () => {
      button.disabled = true;
      setMessage(status);
      try {
        /** @type {{ blob: Blob, filename: string }} */
        const file = await api(a.url, { as: 'file' });
        save(file.blob, file.filename || a.name.replace('/', '-'));
      } catch (err) {
        setMessage(status, `Could not download the ${what}: ${messageOf(err)}`);
      } finally {
        button.disabled = false;
      }
    });
    return button;
  })];
}

/**
 * Opens the trace in the trace viewer (trace-viewer.js).
 * @param {RunArtifact} trace @param {string} name @param {HTMLElement} status
 */
function viewTraceButton(trace, name, status) {
  const button = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid: 'test-result-view-trace', text: 'View trace' }));
  button.type = 'button';
  button.setAttribute('aria-label', `View trace: the Playwright trace of ${name}`);
  button.addEventListener('click', () => openTraceViewer(trace.url, status));
  return button;
}
