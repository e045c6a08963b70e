import { api } from './api.js';
import { $, deleteButton, element, listLoader, setMessage } from './dom.js';
import { closeTemplateEditor, openTemplateEditor } from './template-editor.js';
import { closeTemplateUse, openTemplateUse } from './template-use.js';

/**
 * The organization's custom test templates (docs/test-templates.md), by name: each with its
 * kind, priority, tags, parameters (required ones marked), and how many steps and assertions
 * it has. Everyone may look (the API lets viewers read them); members and admins also add one
 * and edit it (template-editor.js), make a test from it in a project (template-use.js) and
 * delete it (the API enforces the same).
 *
 * @typedef {{ name: string, description?: string, default?: string }} TemplateParameter
 * @typedef {{ id: string, name: string, description: string | null, type: string, parameters: TemplateParameter[], steps: unknown[], assertions: unknown[], priority: string, tags: string[], created_by: string | null, created_at: string, updated_at: string }} Template
 */

const el = {
  panel: $('templates'),
  add: /** @type {HTMLButtonElement} */ ($('templates-new')),
  close: /** @type {HTMLButtonElement} */ ($('templates-close')),
  status: $('templates-status'),
  list: $('templates-list'),
};

/** @type {{ canEdit: boolean } | undefined} */
let current;
/**
 * Which opening the panel shows. Bumped on every open and close, so a row action or a save
 * that answers after the panel was closed (or the organization changed) changes nothing.
 */
let opened = 0;
const templates = listLoader({ status: el.status, list: el.list, empty: 'No templates yet.', what: 'the templates' });

/** @param {number} n @param {string} what */
const count = (n, what) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** @param {TemplateParameter} p "expect = json", or "path (required)" */
function parameterText(p) {
  return p.default === undefined ? `${p.name} (required)` : `${p.name} = ${p.default}`;
}

/** Kind, priority and tags, in one line. @param {Template} t */
function detailOf(t) {
  const tags = t.tags.length ? ` · tags ${t.tags.join(', ')}` : '';
  return `${t.type} · ${t.priority} priority${tags}`;
}

/**
 * A small row button named for its template.
 * @param {string} verb
 * @param {string} testid
 * @param {string} label
 * @param {() => void} onClick
 */
function rowButton(verb, testid, label, onClick) {
  const button = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid, text: verb }));
  button.type = 'button';
  button.setAttribute('aria-label', label);
  button.addEventListener('click', onClick);
  return button;
}

/** @param {Template} t */
function templateRow(t) {
  const li = element('li', { className: 'test-row template-row', testid: 'template-row' });
  li.dataset.id = t.id;
  const about = element('div', { className: 'test-about' });
  about.append(
    element('span', { className: 'test-name', testid: 'template-row-name', text: t.name }),
    element('span', { className: 'muted test-detail', testid: 'template-row-detail', text: detailOf(t) }),
    element('span', { className: 'muted test-detail', testid: 'template-row-parameters', text: t.parameters.length ? `Parameters: ${t.parameters.map(parameterText).join(', ')}` : 'No parameters' }),
    element('span', { className: 'muted test-detail', testid: 'template-row-size', text: `${count(t.steps.length, 'step')} · ${count(t.assertions.length, 'assertion')}` }),
  );
  if (t.description) about.append(element('span', { className: 'test-detail', testid: 'template-row-description', text: t.description }));
  li.append(about);

  if (current?.canEdit) {
    const mine = opened;
    const actions = element('span', { className: 'test-actions' });
    actions.append(
      rowButton('New test', 'template-row-use', `New test from ${t.name}`, () => {
        closeTemplateEditor();
        void openTemplateUse(t, { canRun: true });
      }),
      rowButton('Edit', 'template-row-edit', `Edit ${t.name}`, () => {
        closeTemplateUse();
        void openTemplateEditor(t.id, { onSaved: savedFor(mine) });
      }),
      deleteButton({
        verb: 'Delete',
        testid: 'template-delete',
        item: `template ${t.name}`,
        path: `/api/test-templates/${encodeURIComponent(t.id)}`,
        status: el.status,
        reload: async () => {
          if (mine !== opened) return;
          closeTemplateEditor(t.id);
          closeTemplateUse(t.id);
          await load();
        },
        confirm: `Delete the template “${t.name}”? Tests made from it stay.`,
      }),
    );
    li.append(actions);
  }
  return li;
}

const load = () => templates.load(() => api('/api/test-templates'), templateRow);

/** After a save: the list again, then what was saved. @param {number} mine */
const savedFor = (mine) => async (/** @type {Template} */ saved) => {
  if (mine !== opened) return;
  await load();
  if (mine === opened) setMessage(el.status, `Saved the template “${saved.name}”.`);
};

el.add.addEventListener('click', () => {
  closeTemplateUse();
  void openTemplateEditor(null, { onSaved: savedFor(opened) });
});
el.close.addEventListener('click', closeTemplates);

/**
 * Shows the organization's templates.
 * @param {{ canEdit: boolean }} options members and admins add, edit, delete and make tests; viewers look
 */
export function openTemplates({ canEdit }) {
  opened++;
  current = { canEdit };
  el.add.hidden = !canEdit;
  closeTemplateEditor();
  closeTemplateUse();
  el.list.replaceChildren();
  el.panel.hidden = false;
  el.panel.scrollIntoView({ block: 'nearest' });
  void load();
}

export function closeTemplates() {
  opened++;
  current = undefined;
  templates.cancel();
  closeTemplateEditor();
  closeTemplateUse();
  el.list.replaceChildren();
  setMessage(el.status);
  el.panel.hidden = true;
}
