import { api } from './api.js';
import { actionButton, deleteButton, element } from './dom.js';

/**
 * What every integration row (source control, chat, automation) has: a status line for its
 * last action, and Pause/Resume and Delete buttons that reload the list when done, while
 * the section still shows the organization the row belongs to.
 */

/** The row's status line: what the last row action (a pause, a failed delete) came to. @param {string} testid */
export function rowStatus(testid) {
  const status = element('p', { className: 'vcs-status muted', testid });
  status.setAttribute('role', 'status');
  status.hidden = true;
  return status;
}

/**
 * Pause or Resume (PATCH enabled), any `middle` buttons, then Delete after a confirm.
 * @param {{ enabled: boolean, name: string, item: string, path: string, prefix: string, confirm: string, status: HTMLElement, current: () => boolean, reload: () => Promise<void>, middle?: HTMLElement[] }} o
 *   `name` labels the toggle, `item` the delete; `prefix` makes the test ids (`<prefix>-toggle`, `<prefix>-delete`)
 */
export function integrationActions(o) {
  const verb = o.enabled ? 'Pause' : 'Resume';
  const reload = async () => {
    if (o.current()) await o.reload();
  };
  const actions = element('span', { className: 'vcs-actions' });
  actions.append(
    actionButton({
      text: verb,
      testid: `${o.prefix}-toggle`,
      label: `${verb} ${o.name}`,
      failure: `Could not ${verb.toLowerCase()} ${o.name}`,
      status: o.status,
      current: o.current,
      work: async () => {
        await api(o.path, { method: 'PATCH', body: { enabled: !o.enabled } });
        await reload();
      },
    }),
    ...(o.middle ?? []),
    deleteButton({ verb: 'Delete', testid: `${o.prefix}-delete`, item: o.item, path: o.path, status: o.status, reload, confirm: o.confirm }),
  );
  return actions;
}
