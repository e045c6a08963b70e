import { api } from './api.js';
import { actionButton, disclosureButton, element, setMessage, timeOf } from './dom.js';

/**
 * An integration's delivery log under its row (GET /api/integrations/vcs/{id}/deliveries,
 * newest first): when, the event, the host's delivery id, what svc did with it (started a
 * run, ignored, a duplicate, rejected, failed, with the reason), and the branch, commit,
 * pull request and changed-file count the payload gave. A started delivery opens its run
 * in the project's Tests panel, which follows it and downloads its report.
 *
 * @typedef {'started' | 'ignored' | 'duplicate' | 'rejected' | 'failed'} Outcome
 * @typedef {{ id: string, integration_id: string, delivery_id: string, event: string, outcome: Outcome, run_id: string | null, reason: string | null, branch: string | null, commit_sha: string | null, pusher: string | null, pr_number: number | null, changed_files: number | null, created_at: string }} Delivery
 * @typedef {{ id: string, repository: string }} IntegrationRef
 * @typedef {{ current: () => boolean, openRun: (runId: string, what: string) => void }} DeliveriesContext
 */

/** Deliveries shown: the latest ones. */
const LIMIT = 20;

/** An outcome's badge: a run started green, refused or failed red, the rest grey. */
const OUTCOME_CLASS = /** @type {Record<string, string>} */ ({ started: 'badge badge-enabled', rejected: 'badge badge-failed', failed: 'badge badge-failed' });

/** @param {number} n @param {string} word */
const count = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A commit as people write it: its first seven characters. @param {string} sha */
const shortSha = (sha) => sha.slice(0, 7);

/** What started the run, for the run view's heading ("push to main at 1a2b3c4"). @param {Delivery} d */
function whatRan(d) {
  const kind = d.pr_number !== null ? `pull request #${d.pr_number}` : d.event.split('.')[0];
  const where = d.branch ? ` to ${d.branch}` : '';
  return `${kind}${where}${d.commit_sha ? ` at ${shortSha(d.commit_sha)}` : ''}`;
}

/**
 * The facts the payload gave, each a span of its own.
 * @param {Delivery} d
 * @returns {HTMLElement[]}
 */
function factsOf(d) {
  const facts = [element('span', { className: 'vcs-delivery-event', testid: 'vcs-delivery-event', text: d.event })];
  if (d.branch) facts.push(element('span', { testid: 'vcs-delivery-branch', text: `branch ${d.branch}` }));
  if (d.commit_sha) {
    const commit = element('code', { testid: 'vcs-delivery-commit', text: shortSha(d.commit_sha) });
    commit.title = d.commit_sha;
    facts.push(commit);
  }
  if (d.pr_number !== null) facts.push(element('span', { testid: 'vcs-delivery-pr', text: `PR #${d.pr_number}` }));
  if (d.pusher) facts.push(element('span', { testid: 'vcs-delivery-pusher', text: `by ${d.pusher}` }));
  if (d.changed_files !== null) facts.push(element('span', { testid: 'vcs-delivery-files', text: count(d.changed_files, 'changed file') }));
  return facts;
}

/** @param {Delivery} d @param {DeliveriesContext} ctx */
function deliveryItem(d, ctx) {
  const li = element('li', { className: 'vcs-delivery', testid: 'vcs-delivery' });
  li.dataset.outcome = d.outcome;
  li.dataset.deliveryId = d.delivery_id;
  const facts = element('span', { className: 'vcs-delivery-facts' });
  for (const [i, fact] of factsOf(d).entries()) facts.append(...(i ? [' · ', fact] : [fact]));
  const about = element('div', { className: 'vcs-delivery-about' });
  about.append(facts, element('code', { className: 'muted vcs-delivery-id', testid: 'vcs-delivery-id', text: d.delivery_id }));
  if (d.reason) about.append(element('span', { className: 'vcs-delivery-reason', testid: 'vcs-delivery-reason', text: d.reason }));
  li.append(timeOf(d.created_at, 'vcs-delivery-time'), element('span', { className: OUTCOME_CLASS[d.outcome] ?? 'badge badge-paused', testid: 'vcs-delivery-outcome', text: d.outcome }), about);
  const runId = d.run_id;
  if (runId) {
    const open = /** @type {HTMLButtonElement} */ (element('button', { className: 'button button-small', testid: 'vcs-delivery-run', text: 'Open run' }));
    open.type = 'button';
    open.setAttribute('aria-label', `Open the run of ${whatRan(d)}`);
    open.addEventListener('click', () => ctx.openRun(runId, whatRan(d)));
    li.append(open);
  }
  return li;
}

/**
 * The Deliveries button of a row and the panel it opens under the row (closed until
 * asked for; read again on every opening and by its Refresh button).
 * @param {IntegrationRef} integration
 * @param {DeliveriesContext} ctx
 */
export function deliveriesOf(integration, ctx) {
  const panel = element('div', { className: 'vcs-deliveries', testid: 'vcs-deliveries-panel' });
  panel.id = `vcs-deliveries-${integration.id}`;
  panel.hidden = true;
  const status = element('p', { className: 'muted', testid: 'vcs-deliveries-status' });
  status.setAttribute('role', 'status');
  const list = element('ul', { className: 'vcs-delivery-list', testid: 'vcs-deliveries-list' });
  list.setAttribute('aria-label', `Latest deliveries for ${integration.repository}`);

  async function load() {
    setMessage(status, 'Loading…');
    /** @type {{ items: Delivery[] }} */
    const page = await api(`/api/integrations/vcs/${encodeURIComponent(integration.id)}/deliveries?limit=${LIMIT}`);
    if (!ctx.current() || panel.hidden) return;
    list.replaceChildren(...page.items.map((d) => deliveryItem(d, ctx)));
    setMessage(status, page.items.length ? '' : 'Nothing delivered yet.');
  }

  const failure = 'Could not load the deliveries';
  const refresh = actionButton({ text: 'Refresh', testid: 'vcs-deliveries-refresh', label: `Refresh the deliveries for ${integration.repository}`, failure, status, work: load, current: ctx.current });
  const head = element('div', { className: 'vcs-deliveries-head' });
  head.append(element('strong', { text: `Deliveries, newest first (the latest ${LIMIT})` }), refresh);
  panel.append(head, status, list);

  const button = disclosureButton({ text: 'Deliveries', testid: 'vcs-deliveries', label: `Latest deliveries for ${integration.repository}`, failure, status, current: ctx.current, panel, opening: load });
  return { button, panel };
}
