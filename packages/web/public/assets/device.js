import { api } from './api.js';
import { $, deleteButton, element, listLoader, messageOf, setMessage, timeOf } from './dom.js';

/**
 * The device flow's verification page (/device): a person types (or follows a link with)
 * the code an agent shows, sees which agent asks, and approves or denies. The server
 * redirects here through sign-in, so the calls below run as the signed-in person.
 *
 * @typedef {{ user_code: string, client_id: string, scope: string | null, status: 'pending' | 'approved' | 'denied', expires_at: string }} DeviceRequest
 * @typedef {{ id: string, client_id: string, created_at: string, last_refreshed_at: string | null }} AgentGrant
 */

const el = {
  form: /** @type {HTMLFormElement} */ ($('device-code-form')),
  code: /** @type {HTMLInputElement} */ ($('user-code')),
  request: $('device-request'),
  client: $('device-client'),
  codeShown: $('device-code-shown'),
  approve: /** @type {HTMLButtonElement} */ ($('device-approve')),
  deny: /** @type {HTMLButtonElement} */ ($('device-deny')),
  error: $('device-error'),
  done: $('device-done'),
  agentsStatus: $('device-agents-status'),
  agents: $('device-agents-list'),
};

// The agents signed in as this person, each with Sign out (its tokens stop at once).
const agents = listLoader({ status: el.agentsStatus, list: el.agents, empty: 'No agents are signed in as you.', what: 'the agents signed in as you' });

/** @param {AgentGrant} grant */
function agentRow(grant) {
  const li = element('li', { className: 'device-agent-row', testid: 'device-agent-row' });
  const name = element('strong', { testid: 'device-agent-name', text: grant.client_id });
  const since = element('span', { className: 'muted', text: ' approved ' });
  since.append(timeOf(grant.created_at, 'device-agent-since'));
  li.append(name, since, deleteButton({ verb: 'Sign out', testid: 'device-agent-revoke', item: grant.client_id, path: `/api/auth/agents/${encodeURIComponent(grant.id)}`, status: el.agentsStatus, reload: loadAgents }));
  return li;
}

/** @returns {Promise<void>} */
const loadAgents = () => agents.load(() => api('/api/auth/agents', { organization: false }), agentRow);

/** @type {DeviceRequest | undefined} */
let current;

const path = (/** @type {string} */ code) => `/api/auth/device/${encodeURIComponent(code)}`;

/** @param {DeviceRequest} request */
function finished(request) {
  el.form.hidden = true;
  el.request.hidden = true;
  setMessage(el.done, request.status === 'approved'
    ? `Approved. ${request.client_id} is signed in as you within a few seconds; you can close this page.`
    : `Denied. ${request.client_id} was not signed in.`);
}

async function lookUp() {
  setMessage(el.error);
  const code = el.code.value.trim();
  if (!code) {
    setMessage(el.error, 'Enter the code your agent shows.');
    el.code.focus();
    return;
  }
  try {
    /** @type {DeviceRequest} */
    const request = await api(path(code), { organization: false });
    if (request.status !== 'pending') return finished(request);
    current = request;
    el.client.textContent = request.client_id;
    el.codeShown.textContent = request.user_code;
    el.form.hidden = true;
    el.request.hidden = false;
    el.approve.focus();
  } catch (err) {
    setMessage(el.error, messageOf(err));
  }
}

/** @param {'approve' | 'deny'} verb */
async function decide(verb) {
  if (!current) return;
  el.approve.disabled = el.deny.disabled = true;
  setMessage(el.error);
  try {
    finished(await api(`${path(current.user_code)}/${verb}`, { method: 'POST', body: {}, organization: false }));
  } catch (err) {
    setMessage(el.error, messageOf(err));
    el.approve.disabled = el.deny.disabled = false;
  }
}

el.form.addEventListener('submit', (event) => {
  event.preventDefault();
  void lookUp();
});
el.approve.addEventListener('click', () => void decide('approve'));
el.deny.addEventListener('click', () => void decide('deny'));

const fromLink = new URLSearchParams(location.search).get('user_code');
if (fromLink) {
  el.code.value = fromLink;
  void lookUp();
}
void loadAgents();
