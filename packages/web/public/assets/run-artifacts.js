import { api } from './api.js';
import { element, messageOf, setMessage } from './dom.js';

/**
 * The downloads a failed test's row offers: its Playwright trace (opens in `npx playwright
 * show-trace` or trace.playwright.dev) and its failure screenshot, from
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
 * Buttons that download a failed case's trace and failure screenshot; a failed download is
 * said in `status`.
 * @param {RunArtifact[]} artifacts the case's
 * @param {string} name the case's name, for the buttons' labels
 * @param {HTMLElement} status
 * @param {(blob: Blob, filename: string) => void} save
 */
export function artifactButtons(artifacts, name, status, save) {
  const offered = [
    { artifact: artifacts.find((a) => a.kind === 'trace'), text: 'Trace', label: `Download the Playwright trace of ${name}`, testid: 'test-result-trace' },
    { artifact: artifacts.find((a) => a.kind === 'screenshot' && a.name.endsWith('/failure.png')), text: 'Screenshot', label: `Download the failure screenshot of ${name}`, testid: 'test-result-screenshot' },
  ];
  return offered.filter((o) => o.artifact).map(({ artifact, text, label, testid }) => {
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
        setMessage(status, `Could not download the ${text.toLowerCase()}: ${messageOf(err)}`);
      } finally {
        button.disabled = false;
      }
    });
    return button;
  });
}
