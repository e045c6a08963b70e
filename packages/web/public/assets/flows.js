import { api } from './api.js';
import { $, element, listLoader } from './dom.js';

/**
 * The flows of one project, read-only: shared steps that tests run with a `use` step
 * (docs/test-format.md, Flows) — each with its parameters (required ones marked) and how
 * many tests use it. Flows are written through the API or as *.flow.json files; everyone
 * may look here.
 *
 * @typedef {{ name: string, default?: string | number | boolean, description?: string }} FlowParameter
 * @typedef {{ id: string, name: string, description: string | null, parameters: FlowParameter[], steps: unknown[], used_by_tests: number }} Flow
 * @typedef {{ id: string, name: string }} ProjectRef
 */

const el = {
  panel: $('flows'),
  heading: $('flows-heading'),
  close: /** @type {HTMLButtonElement} */ ($('flows-close')),
  status: $('flows-status'),
  list: $('flows-list'),
};

/** @type {ProjectRef | undefined} */
let current;
const flows = listLoader({ status: el.status, list: el.list, empty: 'No flows yet: POST /api/flows adds one.', what: 'the flows' });

/** @param {FlowParameter} p "email = demo@example.com", or "password (required)" */
function parameterText(p) {
  return p.default === undefined ? `${p.name} (required)` : `${p.name} = ${String(p.default)}`;
}

/** @param {Flow} flow */
function flowRow(flow) {
  const li = element('li', { className: 'flow-row', testid: 'flow-row' });
  li.dataset.id = flow.id;
  const params = flow.parameters.length ? flow.parameters.map(parameterText).join(', ') : 'no parameters';
  const used = flow.used_by_tests === 1 ? 'used by 1 test' : `used by ${flow.used_by_tests} tests`;
  li.append(
    element('span', { className: 'flow-name', testid: 'flow-name', text: flow.name }),
    element('span', { className: 'muted', testid: 'flow-parameters', text: params }),
    element('span', { className: 'muted', testid: 'flow-steps', text: flow.steps.length === 1 ? '1 step' : `${flow.steps.length} steps` }),
    element('span', { className: 'muted', testid: 'flow-used-by', text: used }),
  );
  if (flow.description) li.append(element('p', { className: 'muted flow-description', testid: 'flow-description', text: flow.description }));
  return li;
}

const load = () => flows.load(() => api(`/api/flows?project_id=${encodeURIComponent(current?.id ?? '')}`), flowRow);

el.close.addEventListener('click', closeFlows);

/**
 * Shows the flows of a project.
 * @param {ProjectRef} project
 */
export function openFlows(project) {
  current = project;
  el.heading.textContent = `Flows · ${project.name}`;
  el.list.replaceChildren();
  el.panel.hidden = false;
  el.panel.scrollIntoView({ block: 'nearest' });
  void load();
}

export function closeFlows() {
  current = undefined;
  flows.cancel();
  el.list.replaceChildren();
  el.panel.hidden = true;
}
