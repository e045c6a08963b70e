import { $, element } from './dom.js';

/**
 * What to paste into the host once an integration is added: the webhook secret, which the
 * API returns in the create answer only (so this panel is its one showing: nothing keeps
 * it, and a reload, another organization or the next submission drops it), and the
 * values GitHub's or GitLab's webhook form asks for.
 *
 * @typedef {import('./vcs.js').Integration & { secret: string, webhook_path: string }} Created
 * @typedef {[label: string, value: string, copy?: 'copy']} Setting
 */

const panel = $('vcs-created');

/** What each host calls its event check boxes. */
const EVENT_NAMES = {
  github: /** @type {Record<string, string>} */ ({ push: 'Pushes', pull_request: 'Pull requests' }),
  gitlab: /** @type {Record<string, string>} */ ({ push: 'Push events', pull_request: 'Merge request events' }),
};

/** Hosts that GitHub or GitLab cannot reach without a tunnel. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Drops the secret from the page. */
export function hideSetup() {
  panel.hidden = true;
  panel.replaceChildren();
}

/**
 * A button that copies `text` and says whether it did (also the automation section's, for its one-time secret).
 * @param {string} text
 * @param {string} what what it copies, for assistive technology
 * @param {string} testid
 */
export function copyButton(text, what, testid) {
  const button = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid, text: 'Copy' }));
  button.type = 'button';
  button.setAttribute('aria-label', `Copy the ${what}`);
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = 'Copied';
    } catch {
      // No clipboard (an insecure origin, a refused permission): the value is on screen to select.
      button.textContent = 'Copy failed: select it';
    }
  });
  return button;
}

/**
 * The host's webhook form, one row per field, in its order.
 * @param {Created} created
 * @param {string} payloadUrl
 * @returns {Setting[]}
 */
function settingsOf(created, payloadUrl) {
  const events = created.events.map((e) => EVENT_NAMES[created.provider][e] ?? e).join(', ');
  if (created.provider === 'gitlab') {
    return [
      ['URL', payloadUrl, 'copy'],
      ['Secret token', created.secret, 'copy'],
      ['Trigger', events],
      ['SSL verification', 'Enable'],
    ];
  }
  return [
    ['Payload URL', payloadUrl, 'copy'],
    ['Content type', 'application/json'],
    ['Secret', created.secret, 'copy'],
    ['SSL verification', 'Enable'],
    ['Which events', `Let me select individual events: ${events}`],
    ['Active', 'Checked'],
  ];
}

/** Where the host's webhook form is. @param {Created} created */
function whereOf(created) {
  const where = element('p', { testid: 'vcs-setup-where' });
  if (created.provider === 'gitlab') {
    where.append('In GitLab, project ', element('code', { text: created.repository }), ': Settings → Webhooks → Add new webhook, with:');
    return where;
  }
  const link = /** @type {HTMLAnchorElement} */ (element('a', { testid: 'vcs-setup-link', text: 'Settings → Webhooks → Add webhook' }));
  link.href = `https://github.com/${created.repository.split('/').map(encodeURIComponent).join('/')}/settings/hooks/new`;
  link.target = '_blank';
  link.rel = 'noopener noreferrer';
  where.append('On GitHub, repository ', element('code', { text: created.repository }), ': ', link, ', with:');
  return where;
}

/**
 * Shows the new integration's secret and setup values.
 * @param {Created} created
 */
export function showSetup(created) {
  const payloadUrl = `${location.origin}${created.webhook_path}`;
  const intro = element('p');
  intro.append(element('strong', { text: 'Copy the secret now:' }), ' it is not shown again. To change it later, delete the integration and add it again.');

  const list = element('dl', { className: 'vcs-setup', testid: 'vcs-setup' });
  for (const [label, value, copy] of settingsOf(created, payloadUrl)) {
    const testid = `vcs-setup-${label.toLowerCase().replace(/[^a-z]+/g, '-')}`;
    const dd = element('dd');
    dd.append(element('code', { testid, text: value }));
    if (copy) dd.append(copyButton(value, label.toLowerCase(), `${testid}-copy`));
    list.append(element('dt', { text: label }), dd);
  }

  const host = created.provider === 'gitlab' ? 'GitLab' : 'GitHub';
  const after = element('p', { className: 'muted', testid: 'vcs-setup-after' });
  after.textContent =
    created.provider === 'gitlab'
      ? `${host} can test the hook (Test → Push events); its delivery shows under the integration's Deliveries.`
      : `${host} then sends a ping, answered 202 when the secret is right; a 401 means the secret or the repository name is wrong.`;

  const done = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid: 'vcs-setup-done', text: 'Done' }));
  done.type = 'button';
  done.addEventListener('click', hideSetup);

  panel.replaceChildren(element('h3', { text: `Set up the webhook for ${created.repository}` }), intro, whereOf(created), list);
  if (LOOPBACK.has(location.hostname)) {
    panel.append(element('p', { className: 'vcs-note', testid: 'vcs-setup-loopback', text: `This dashboard is at a loopback address: ${host} can reach ${payloadUrl} only through a tunnel you run. Give ${host} the tunnel's address, ending in ${created.webhook_path}.` }));
  }
  panel.append(after, done);
  panel.hidden = false;
  panel.scrollIntoView({ block: 'nearest' });
}
