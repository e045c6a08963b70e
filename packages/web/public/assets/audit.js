import { api, ApiError } from './api.js';
import { $, clearFieldErrors, setMessage, showFieldError, showFieldErrors, submitting } from './dom.js';
import { showAuditReport } from './audit-views.js';

/**
 * The quality audit of one page of a project's app, for members and admins (the API lets no
 * viewer audit): a URL (the project's app URL by default; a path resolves against it), the
 * checks, what fails it, and the report (audit-views.js). The audit runs in the server's
 * browser and takes a few seconds; nothing is stored. The API's refusals go under the
 * field they are about: a URL outside the project's hosts or a page that did not load
 * (400), and a deployment without a browser (501), under the URL.
 *
 * @typedef {{ id: string, name: string, app_url?: string | null }} ProjectRef
 */

const el = {
  panel: $('audit'),
  heading: $('audit-heading'),
  close: /** @type {HTMLButtonElement} */ ($('audit-close')),
  form: /** @type {HTMLFormElement} */ ($('audit-form')),
  url: /** @type {HTMLInputElement} */ ($('audit-url')),
  failOn: /** @type {HTMLSelectElement} */ ($('audit-fail-on')),
  formError: $('audit-error'),
  status: $('audit-status'),
  report: $('audit-report'),
};

const CHECK_INPUTS = /** @type {HTMLInputElement[]} */ ([...el.form.querySelectorAll('input[name="checks"]')]);
const checkedChecks = () => CHECK_INPUTS.filter((input) => input.checked).map((input) => input.value);

/** The form's fields by the name the API's issues use. */
const FIELDS = /** @type {Record<string, import('./dom.js').FormField>} */ ({
  url: { inputs: [el.url], error: $('audit-url-error'), empty: () => false },
  checks: { inputs: CHECK_INPUTS, error: $('audit-checks-error'), empty: () => checkedChecks().length === 0, emptyMessage: 'Choose at least one check.' },
});

/** @type {ProjectRef | undefined} */
let current;
/** Which opening the panel shows; an audit answering for a closed panel or another project is dropped. */
let opened = 0;

el.form.addEventListener('submit', async (event) => {
  event.preventDefault();
  if (!current) return;
  const mine = opened;
  clearFieldErrors(FIELDS, el.formError);
  // Everything goes to the API, which names what is wrong; an empty URL means the app URL.
  /** @type {{ project_id: string, url?: string, checks: string[], fail_on: string }} */
  const body = { project_id: current.id, checks: checkedChecks(), fail_on: el.failOn.value };
  const url = el.url.value.trim();
  if (url) body.url = url;
  setMessage(el.status, `Auditing ${url || 'the app URL'}: the server's browser opens the page…`);
  await submitting(el.form, async () => {
    try {
      const report = await api('/api/quality/audit', { method: 'POST', body });
      if (mine !== opened) return;
      setMessage(el.status);
      showAuditReport(el.report, report);
    } catch (err) {
      if (mine !== opened) return;
      setMessage(el.status);
      el.report.hidden = true;
      el.report.replaceChildren();
      // No browser on this deployment: the URL cannot be audited here, whatever it is.
      if (err instanceof ApiError && err.status === 501) {
        showFieldError(FIELDS.url, err.message);
        el.url.focus();
      } else {
        showFieldErrors(err, { fields: FIELDS, formError: el.formError, form: el.form });
      }
    }
  });
});

el.close.addEventListener('click', closeAudit);

/**
 * Shows the audit form for a project, its URL field at the project's app URL.
 * @param {ProjectRef} project
 */
export function openAudit(project) {
  opened++;
  current = project;
  el.heading.textContent = `Quality audit · ${project.name}`;
  el.form.reset();
  // Set as the default value, so that a form reset keeps it.
  el.url.defaultValue = project.app_url ?? '';
  el.url.value = project.app_url ?? '';
  clearFieldErrors(FIELDS, el.formError);
  setMessage(el.status, project.app_url ? '' : 'The project has no app URL: give the page’s full URL.');
  el.report.hidden = true;
  el.report.replaceChildren();
  el.panel.hidden = false;
  el.panel.scrollIntoView({ block: 'nearest' });
}

export function closeAudit() {
  opened++;
  current = undefined;
  el.report.hidden = true;
  el.report.replaceChildren();
  setMessage(el.status);
  el.panel.hidden = true;
}
