import { api } from './api.js';
import { messageOf, setMessage } from './dom.js';

/**
 * Opens a failed test's Playwright trace in the trace viewer this server hosts at
 * /trace-viewer/ (Playwright's own app, docs/trace-viewer.md). The trace is fetched with the
 * session's headers — the viewer's service worker could not send them — and handed to the
 * viewer's window as a file, the way Playwright's viewer takes one: it says `ready` to its
 * opener, then loads the Blob of a `load` message. Nothing leaves this origin.
 */

/** How long the viewer may take to start before we say it did not. */
const READY_TIMEOUT_MS = 30_000;

/**
 * Must be called from the click itself: the window is opened before anything is awaited,
 * so browsers do not treat it as an unrequested pop-up.
 * @param {string} url the trace's download URL (GET /api/runs/{id}/artifacts/…)
 * @param {HTMLElement} status where a failure is said
 */
export function openTraceViewer(url, status) {
  setMessage(status);
  const viewer = window.open('/trace-viewer/', '_blank');
  if (!viewer) {
    setMessage(status, 'The browser blocked the trace viewer\'s window: allow pop-ups for this site, or download the trace.');
    return;
  }
  const trace = api(url, { as: 'file' });
  Promise.all([trace, viewerReady(viewer)])
    .then(([file]) => viewer.postMessage({ method: 'load', params: { trace: /** @type {{ blob: Blob }} */ (file).blob } }, window.location.origin))
    .catch((/** @type {unknown} */ err) => {
      viewer.close();
      setMessage(status, `Could not open the trace: ${err instanceof ViewerNotReady ? err.message : messageOf(err)}`);
    });
}

class ViewerNotReady extends Error {}

/**
 * Resolves when the viewer's window says it is ready for a trace.
 * @param {Window} viewer
 * @returns {Promise<void>}
 */
function viewerReady(viewer) {
  return new Promise((resolve, reject) => {
    /** @param {MessageEvent} event */
    const onMessage = (event) => {
      if (event.source !== viewer || event.origin !== window.location.origin || event.data?.method !== 'ready') return;
      done();
      resolve();
    };
    const timer = setTimeout(() => {
      done();
      // Service workers, which the viewer reads traces with, need https or localhost.
      reject(new ViewerNotReady(window.isSecureContext
        ? 'the trace viewer did not start'
        : 'the trace viewer needs this dashboard over https (or on localhost); download the trace and open it with npx playwright show-trace instead'));
    }, window.isSecureContext ? READY_TIMEOUT_MS : 0);
    const done = () => {
      clearTimeout(timer);
      window.removeEventListener('message', onMessage);
    };
    window.addEventListener('message', onMessage);
  });
}
