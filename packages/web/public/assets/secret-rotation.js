import { api } from './api.js';
import { actionButton, element, timeOf } from './dom.js';
import { copyButton } from './vcs-setup.js';

/**
 * "Rotate secret" on an integration row (source control, automation): after a confirm it
 * asks the API for a new secret (POST <path>/rotate-secret, the default grace period) and
 * shows it under the row this once, with a Copy button and until when the previous secret
 * still works. The API never returns it again: nothing here keeps it, and Done, a reload
 * or another organization drops it (the row itself is not reloaded meanwhile, which would).
 *
 * @typedef {{ secret: string, previous_secret_expires_at: string | null }} Rotated
 */

/**
 * @param {{ path: string, name: string, prefix: string, where: string, status: HTMLElement, current: () => boolean, rotated?: (answer: Rotated) => void }} o
 *   `name` labels the button, `prefix` makes the test ids (`<prefix>-rotate`, `<prefix>-rotated…`),
 *   `where` says where the new secret goes ("the repository's webhook"), `rotated` updates the row (a new hint)
 */
export function rotateSecret(o) {
  const panel = element('div', { className: 'vcs-created rotated-secret', testid: `${o.prefix}-rotated` });
  panel.setAttribute('aria-live', 'polite');
  panel.hidden = true;
  const hide = () => {
    panel.hidden = true;
    panel.replaceChildren();
  };

  /** @param {Rotated} answer */
  function show(answer) {
    const intro = element('p');
    intro.append(element('strong', { text: 'Copy the new secret now:' }), ` it is not shown again. Put it into ${o.where}.`);
    const value = element('dd');
    value.append(element('code', { testid: `${o.prefix}-rotated-secret`, text: answer.secret }), copyButton(answer.secret, 'new secret', `${o.prefix}-rotated-copy`));
    const list = element('dl', { className: 'vcs-setup' });
    list.append(element('dt', { text: 'New secret' }), value);
    const grace = element('p', { testid: `${o.prefix}-rotated-grace` });
    if (answer.previous_secret_expires_at) grace.append('The previous secret keeps working until ', timeOf(answer.previous_secret_expires_at, `${o.prefix}-rotated-until`), '.');
    else grace.textContent = 'The previous secret no longer works.';
    const done = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid: `${o.prefix}-rotated-done`, text: 'Done' }));
    done.type = 'button';
    done.addEventListener('click', hide);
    panel.replaceChildren(element('h3', { text: `New secret for ${o.name}` }), intro, list, grace, done);
    panel.hidden = false;
  }

  const button = actionButton({
    text: 'Rotate secret',
    testid: `${o.prefix}-rotate`,
    label: `Rotate the secret of ${o.name}`,
    failure: `Could not rotate the secret of ${o.name}`,
    status: o.status,
    current: o.current,
    work: async () => {
      if (!window.confirm(`Rotate the secret of ${o.name}? A new secret is made and shown once; the current one keeps working for 24 hours, until you have put the new one into ${o.where}.`)) return;
      /** @type {Rotated} */
      const answer = await api(`${o.path}/rotate-secret`, { method: 'POST', body: {} });
      if (!o.current()) return;
      o.rotated?.(answer);
      show(answer);
    },
  });
  return { button, panel };
}
