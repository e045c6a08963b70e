import { api, ApiError } from './api.js';
import { $, deleteButton, element, listLoader, messageOf, requiredValue, setMessage, submitting } from './dom.js';

/**
 * The organization's API keys, for admins: the keys that scripts, CI and AI assistants
 * (through the /mcp tool gateway) use. A key is shown once, when it is created, with the
 * command that gives it to an assistant; afterwards only its prefix is known.
 *
 * @typedef {{ id: string, name: string, prefix: string, permissions: string[], created_at: string, last_used: string | null, revoked_at: string | null }} ApiKey
 */

const el = {
  panel: $('api-keys'),
  mcpUrl: $('mcp-url'),
  deviceLogin: $('device-login-command'),
  status: $('api-keys-status'),
  list: $('api-keys-list'),
  form: /** @type {HTMLFormElement} */ ($('api-key-form')),
  name: /** @type {HTMLInputElement} */ ($('api-key-name')),
  scope: /** @type {HTMLSelectElement} */ ($('api-key-scope')),
  nameError: $('api-key-name-error'),
  formError: $('api-key-error'),
  created: $('api-key-created'),
  secret: $('api-key-secret'),
  command: $('api-key-mcp-command'),
};

const keys = listLoader({ status: el.status, list: el.list, empty: 'No API keys yet.', what: 'the API keys' });

const mcpUrl = () => `${location.origin}/mcp`;

/** @param {string | null} iso */
const when = (iso) => (iso ? new Date(iso).toLocaleString() : 'never');

/** @param {ApiKey} key */
function keyRow(key) {
  const li = element('li', { className: 'api-key-row', testid: 'api-key-row' });
  const name = element('span', { className: 'api-key-name', testid: 'api-key-row-name', text: key.name });
  const detail = element('span', { className: 'api-key-detail muted', testid: 'api-key-row-detail', text: `${key.prefix}… · ${key.permissions.join(', ')} · last used ${when(key.last_used)}` });
  const actions = element('span');
  if (key.revoked_at) {
    actions.append(element('span', { className: 'badge', testid: 'api-key-revoked', text: 'revoked' }));
  } else {
    actions.append(deleteButton({ verb: 'Revoke', testid: 'api-key-revoke', item: key.name, path: `/api/api-keys/${encodeURIComponent(key.id)}`, status: el.status, reload: load, confirm: `Revoke the API key “${key.name}”? Every assistant, script or CI job using it stops working at once; this cannot be undone.` }));
  }
  li.append(name, detail, actions);
  return li;
}

/** @returns {Promise<void>} */
const load = () => keys.load(() => api('/api/api-keys?limit=100'), keyRow);

function clearFormErrors() {
  setMessage(el.nameError);
  setMessage(el.formError);
  el.name.removeAttribute('aria-invalid');
}

/** Shows or hides the panel; shown, it (re)loads the selected organization's keys. @param {boolean} visible */
export function showApiKeys(visible) {
  el.panel.hidden = !visible;
  el.created.hidden = true;
  el.secret.textContent = '';
  el.command.textContent = '';
  clearFormErrors();
  if (!visible) {
    keys.cancel();
    return;
  }
  el.mcpUrl.textContent = mcpUrl();
  el.deviceLogin.textContent = `npx svc login --server ${location.origin}`;
  void load();
}

el.form.addEventListener('submit', async (event) => {
  event.preventDefault();
  clearFormErrors();
  const name = requiredValue(el.name, el.nameError);
  if (!name) return;
  await submitting(el.form, async () => {
    try {
      /** @type {ApiKey & { key: string }} */
      const created = await api('/api/api-keys', { method: 'POST', body: { name, permissions: [el.scope.value] } });
      el.secret.textContent = created.key;
      el.command.textContent = `claude mcp add --transport http svc ${mcpUrl()} --header "Authorization: Bearer ${created.key}"`;
      el.created.hidden = false;
      el.form.reset();
      await load();
    } catch (err) {
      const issue = err instanceof ApiError && Array.isArray(err.details?.issues) ? err.details.issues.find((/** @type {{ path?: unknown; message?: unknown }} */ i) => String(i?.path) === 'name') : undefined;
      if (issue) {
        setMessage(el.nameError, String(issue.message));
        el.name.setAttribute('aria-invalid', 'true');
      } else {
        setMessage(el.formError, messageOf(err));
      }
    }
  });
});
