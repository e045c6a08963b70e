import { api, ApiError } from './api.js';
import { $, messageOf, setMessage } from './dom.js';

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

/** Bumped on every load so that a slow answer for an organization no longer shown is ignored. */
let loadSeq = 0;

const mcpUrl = () => `${location.origin}/mcp`;

/** @param {string | null} iso */
const when = (iso) => (iso ? new Date(iso).toLocaleString() : 'never');

/** @param {ApiKey} key */
function keyRow(key) {
  const li = document.createElement('li');
  li.className = 'api-key-row';
  li.dataset.testid = 'api-key-row';

  const name = document.createElement('span');
  name.className = 'api-key-name';
  name.dataset.testid = 'api-key-row-name';
  name.textContent = key.name;

  const detail = document.createElement('span');
  detail.className = 'api-key-detail muted';
  detail.dataset.testid = 'api-key-row-detail';
  detail.textContent = `${key.prefix}… · ${key.permissions.join(', ')} · last used ${when(key.last_used)}`;

  const actions = document.createElement('span');
  if (key.revoked_at) {
    const badge = document.createElement('span');
    badge.className = 'badge';
    badge.dataset.testid = 'api-key-revoked';
    badge.textContent = 'revoked';
    actions.append(badge);
  } else {
    const revoke = document.createElement('button');
    revoke.type = 'button';
    revoke.className = 'button button-small';
    revoke.dataset.testid = 'api-key-revoke';
    revoke.textContent = 'Revoke';
    revoke.setAttribute('aria-label', `Revoke ${key.name}`);
    revoke.addEventListener('click', () => void revokeKey(key, revoke));
    actions.append(revoke);
  }
  li.append(name, detail, actions);
  return li;
}

async function load() {
  const seq = ++loadSeq;
  setMessage(el.status, 'Loading…');
  try {
    /** @type {{ items: ApiKey[] }} */
    const page = await api('/api/api-keys?limit=100');
    if (seq !== loadSeq) return;
    el.list.replaceChildren(...page.items.map(keyRow));
    setMessage(el.status, page.items.length ? '' : 'No API keys yet.');
  } catch (err) {
    if (seq !== loadSeq) return;
    el.list.replaceChildren();
    setMessage(el.status, `Could not load the API keys: ${messageOf(err)}`);
  }
}

/**
 * @param {ApiKey} key
 * @param {HTMLButtonElement} button
 */
async function revokeKey(key, button) {
  button.disabled = true;
  try {
    await api(`/api/api-keys/${encodeURIComponent(key.id)}`, { method: 'DELETE' });
    await load();
  } catch (err) {
    button.disabled = false;
    setMessage(el.status, `Could not revoke ${key.name}: ${messageOf(err)}`);
  }
}

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
  if (!visible) return;
  el.mcpUrl.textContent = mcpUrl();
  void load();
}

el.form.addEventListener('submit', async (event) => {
  event.preventDefault();
  clearFormErrors();
  const name = el.name.value.trim();
  if (!name) {
    setMessage(el.nameError, 'This field is required.');
    el.name.setAttribute('aria-invalid', 'true');
    el.name.focus();
    return;
  }
  const submit = /** @type {HTMLButtonElement} */ (el.form.querySelector('button[type="submit"]'));
  submit.disabled = true;
  try {
    /** @type {ApiKey & { key: string }} */
    const created = await api('/api/api-keys', { method: 'POST', body: { name, permissions: [el.scope.value] } });
    el.secret.textContent = created.key;
    el.command.textContent = `claude mcp add --transport http svc ${mcpUrl()} --header "Authorization: Bearer ${created.key}"`;
    el.created.hidden = false;
    el.form.reset();
    await load();
  } catch (err) {
    const issue = err instanceof ApiError && Array.isArray(err.details?.issues) ? err.details.issues.find((i) => String(i?.path) === 'name') : undefined;
    if (issue) {
      setMessage(el.nameError, String(issue.message));
      el.name.setAttribute('aria-invalid', 'true');
    } else {
      setMessage(el.formError, messageOf(err));
    }
  } finally {
    submit.disabled = false;
  }
});
