import type { HttpMethod } from '../openapi/route.ts';

/**
 * The agent tool gateway's tools (spec: Agent tool gateway). Each tool is one backend
 * route: the gateway forwards a call to that route with the caller's own credential, so a
 * tool can do exactly what the route lets that caller do, and it is validated, audited and
 * rate-limited as the route is. Only tools whose backend exists are listed (docs/decisions.md).
 */
export interface GatewayTool {
  name: string;
  title: string;
  /** For the assistant: what the tool is for and what it returns (the route's summary is appended). */
  description: string;
  method: HttpMethod;
  /** Hono-style path of the backend route. */
  path: string;
  /** Reads only: the assistant may call it without asking (MCP readOnlyHint). */
  readOnly: boolean;
  /**
   * The tool starts something that runs on (a test run): with a `wait_seconds` argument the
   * gateway follows it through `statusPath` (the id taken from the start response at
   * `idField`) and answers with its final status, so one call can run tests and report.
   */
  follow?: { statusPath: string; idField: string };
  /**
   * A response field holding a picture ({ mime_type, base64 }): the gateway sends it as MCP
   * image content rather than as base64 inside the JSON text (svc_act's screenshot).
   */
  image?: string;
  /**
   * Arguments sent when the assistant gives none. A route's own defaults suit people and
   * scripts; an assistant's context is small (svc_list_tests lists summaries, not steps).
   */
  defaults?: Record<string, string>;
  /**
   * A person's decision (approving, rejecting or modifying a run waiting for approval): an
   * assistant may relay it for the person it works for, but svc's own agent (svc_agent) is
   * never offered it — approval exists so that a person, not the model that planned or
   * healed the run, decides whether it goes on.
   */
  personsDecision?: true;
}

const tool = (name: string, title: string, method: HttpMethod, path: string, readOnly: boolean, description: string, extra: Pick<GatewayTool, 'follow' | 'image' | 'defaults' | 'personsDecision'> = {}): GatewayTool => ({ name, title, method, path, readOnly, description, ...extra });

/** The tools svc's own agent may be offered: all but the persons' decisions. */
export const isAgentTool = (t: Pick<GatewayTool, 'personsDecision'>): boolean => t.personsDecision !== true;

export const GATEWAY_TOOLS: readonly GatewayTool[] = [
  tool('svc_health', 'API status', 'get', '/health', true, 'Is the svc API up, and which version runs.'),
  tool('svc_list_projects', 'List projects', 'get', '/api/v1/projects', true, 'The projects of your organization (ids are needed by most other tools).'),
  tool('svc_create_project', 'Create a project', 'post', '/api/v1/projects', false, 'Create a project for an app under test: its name and app_url (the base URL tests run against). Answers with its id.'),
  tool('svc_list_tests', 'List tests', 'get', '/api/tests', true, 'Tests of a project, newest first, as summaries (view full: with steps); svc_get_test gives one whole.', { defaults: { view: 'summary' } }),
  tool('svc_get_test', 'Get a test', 'get', '/api/tests/:id', true, 'One stored test in full: its steps, assertions, timeout_ms, parameters, parameter sets and revision (the If-Match value for a change).'),
  tool('svc_create_test', 'Create a test', 'post', '/api/tests', false, 'Store a test (UI, API or database steps and assertions) in a project.'),
  tool('svc_update_test', 'Change a test', 'patch', '/api/tests/:id', false, 'Change a stored test: its name, steps, assertions, priority, tags, timeout_ms or parameters (a list or map given replaces the old one whole). Use it to accept a heal into the test or fix a test that broke.'),
  tool('svc_quarantine_test', 'Quarantine a test', 'post', '/api/tests/:id/quarantine', false, 'Quarantine a test that fails for a known reason (a flake, a bug being fixed): it keeps running and reporting, but its failure no longer fails runs, commit statuses or notifications. Give the reason.'),
  tool('svc_release_test', 'Release a test', 'delete', '/api/tests/:id/quarantine', false, 'Take a test out of quarantine: its failures fail runs again.'),
  tool('svc_test_revisions', 'Test history', 'get', '/api/tests/:id/revisions', true, 'Who changed a test, when, and which fields.'),
  tool('svc_restore_test_revision', 'Restore revision', 'post', '/api/tests/:id/revisions/:revision/restore', false, 'Undo a test to a revision.'),
  tool('svc_test', 'Run tests', 'post', '/api/v1/test/run', false, 'Run tests in a real browser, over HTTP or against a database. Without wait_seconds it returns the run id at once (follow it with svc_run_status); with wait_seconds it answers with the run\'s final status and totals, or its status so far.', { follow: { statusPath: '/api/v1/test/status/:id', idField: 'run.id' } }),
  tool('svc_pending_approvals', 'Runs awaiting approval', 'get', '/api/v1/approvals/pending', true, 'Runs waiting for a person\'s decision: thread_id, run_id, the node (execute_test: the test plan; self_heal: a fix of test_id), proposal, reason and expires_at (then treated as a reject).'),
  tool('svc_approve_run', 'Approve a run', 'post', '/api/v1/approvals/:thread_id/approve', false, 'Approve, for the person you work for, what a run waits for (its test plan or a fix). approval_id only when several are pending.', { personsDecision: true }),
  tool('svc_reject_run', 'Reject a run', 'post', '/api/v1/approvals/:thread_id/reject', false, 'Reject, for the person you work for, what a run waits for; comment says why.', { personsDecision: true }),
  tool('svc_modify_run', 'Approve a modified plan', 'post', '/api/v1/approvals/:thread_id/modify', false, 'Approve, for the person you work for, with changes: state holds the run state fields to replace (e.g. test_plan, from svc_run_status run.test_plan), validated; the run goes on with them.', { personsDecision: true }),
  tool('svc_run_status', 'Run status', 'get', '/api/v1/test/status/:id', true, 'Status and totals of a run. run.status ends completed (ran to the end: read the totals), failed (the run could not run: see error) or cancelled. Tests failed when failed_tests - results.quarantined_failed > 0.'),
  tool('svc_cancel_run', 'Cancel a run', 'post', '/api/v1/test/cancel/:id', false, 'Stop a run that is still going (its tests and browser); its status becomes cancelled.'),
  tool('svc_list_runs', 'List runs', 'get', '/api/runs', true, "A project's runs, newest first, with totals; filter by status or trigger. Finds runs you did not start."),
  tool('svc_results', 'Run results', 'get', '/api/v1/tests/:id/results', true, 'Per-test results of a run: status, failed step, error, heals. status=failed: only failures; limit/cursor page.'),
  tool('svc_report', 'Run report', 'get', '/api/reports/:run_id', true, 'The report of a run as JSON, Markdown, JUnit XML or HTML (format).'),
  tool('svc_run_artifacts', 'Run artifacts', 'get', '/api/runs/:id/artifacts', true, 'The Playwright trace and screenshots of each failed UI test of a run, and its visual comparison images, with download URLs (same credentials).'),
  tool('svc_compare_runs', 'Compare runs', 'get', '/api/runs/:id/compare', true, 'Did this run break something or was it already broken: each test against a base run (default: a pull request\'s target branch\'s run, else the previous finished one).'),
  tool('svc_discover', 'Discover pages', 'post', '/api/discover', true, 'Crawl a few pages of an app and list what can be tested on them.'),
  tool('svc_analyze', 'Analyse a codebase', 'post', '/api/analyze', false, 'Find routes, pages, forms and API endpoints in a repository. With async: true the knowledge worker analyses it in the background and keeps it for the project\'s runs; follow it with svc_analysis.'),
  tool('svc_analysis', 'Codebase analysis', 'get', '/api/analyze/:id', true, 'A codebase queued with svc_analyze async: its status (queued, analyzed, failed with the reason) and the analysis once done.'),
  tool('svc_test_templates', 'Test templates', 'get', '/api/test-templates', true, "The organization's custom test templates: the house shape of a kind of test, with the parameters ({{template.<name>}}) a new test fills in. Prefer one when it fits what you are asked to test."),
  tool('svc_test_from_template', 'Test from a template', 'post', '/api/test-templates/:id/tests', false, 'Make a test in a project from a custom template, giving a value per parameter.'),
  tool('svc_what_to_test', 'What to test', 'post', '/api/suggest', true, 'A prioritised test plan with the reasons.'),
  tool('svc_risk_scores', 'Change risk', 'post', '/api/risk/score', true, 'Risk score of changes (a diff or changed files) or of one target.'),
  tool('svc_generate_test', 'Generate a test', 'post', '/api/generate', false, 'A test from an intent on a page in svc\'s sentence grammar, one action per line (fill "Email" with "a@b.c", click "Sign in", I should see "Welcome"; a line it cannot read is refused naming the closest sentence), or from a discovered flow.'),
  tool('svc_test_from_text', 'Test from plain language', 'post', '/api/nlp/create-test', false, 'A test from plain-language lines, one action or check per line; with a language model configured, free-form lines are first rewritten into svc\'s sentence grammar. The test is executed once against the project\'s app and saved when it passes; lines that cannot be read are refused, listed with the closest sentence.'),
  tool('svc_test_from_story', 'Test from a user story', 'post', '/api/nlp/create-from-story', false, 'A test from a user story: Given/When/Then lines become steps and checks ("As a … I want … so that …" becomes its description). Executed once against the project\'s app and saved when it passes.'),
  tool('svc_batch_generate', 'Generate a suite', 'post', '/api/generate/batch', false, 'Tests from discovered flows, each executed once.'),
  tool('svc_recording_to_test', 'Recording to test', 'post', '/api/recording/convert', false, 'A test from a Chrome DevTools recording or a Playwright codegen script.'),
  tool('svc_test_from_event', 'Test from a failure', 'post', '/api/test/from-event', false, 'A regression test that replays a production failure event.'),
  tool('svc_test_review', 'Review a test', 'post', '/api/test/review', true, 'Quality findings on a test: brittle selectors, missing assertions, fixed waits.'),
  tool('svc_healing_config', 'Healing settings', 'get', '/api/healing/config', true, 'Healing limits, modes and a project\'s overrides.'),
  tool('svc_healing_patterns', 'Learned heals', 'get', '/api/healing/patterns', true, 'Fixes the healer learned (broken selector → working one), newest first.'),
  tool('svc_healing_stats', 'Healing statistics', 'get', '/api/healing/stats', true, 'Heals applied, success rate, cache hits, top patterns.'),
  tool('svc_healing_review', 'Review heals', 'post', '/api/healing/review', true, 'Whether each learned pattern or suggestion is safe to apply automatically, and why.'),
  tool('svc_visual_baselines', 'Visual baselines', 'get', '/api/visual/baselines', true, 'The accepted screenshots visual assertions compare against, of a test or a project (id, name, screenshot_hash, size).'),
  tool('svc_visual_compare', 'Compare screenshots', 'post', '/api/visual/compare', true, 'Pixel difference between two images: stored baselines ({ baseline_id }), screenshots a run kept ({ screenshot_hash }: a result\'s metadata.visual proposed_hash) or base64 PNGs. Pass include_diff: false unless you need the diff image.'),
  tool('svc_visual_accept', 'Accept a visual baseline', 'post', '/api/visual/baselines', false, 'Make a screenshot a test\'s visual baseline after a wanted UI change: the proposed_hash of a failed visual assertion (from svc_results metadata.visual), for that test and baseline name.'),
  tool('svc_quality_score', 'Quality score', 'get', '/api/quality/score', true, 'A project\'s test health, 0..100 with a grade: pass rate, stability (flaky tests), coverage of discovered pages and maintenance (healed locators), and what costs it most. Read the reasons before suggesting work.'),
  tool('svc_quality_audit', 'Audit a page', 'post', '/api/quality/audit', true, 'Open one page of a project\'s app in Chromium and report its accessibility violations (axe-core rules, impact and elements, a 0..100 score), missing security headers and weak cookies, load timings (TTFB, LCP, CLS) and console errors; each finding has a severity and a fix. url may be a path of the app.'),
  tool('svc_act', 'Act in the browser', 'post', '/api/act', false, 'Drive a project\'s app in a fresh Chromium: give steps in the test format and/or an instruction in plain language, one action per line (open /login, fill "Email" with "demo@example.com", click "Sign in", I should see "Welcome"). Answers with each step\'s outcome (a failure names its step), the final URL and title, console errors, failed requests and a screenshot of the final page (as an image). Each call starts a new browser: to continue, pass the returned steps again with more. save_as_test keeps the steps as a test when they all passed.', { image: 'screenshot' }),
  tool('svc_autonomous_loop', 'Autonomous loop', 'post', '/api/quality/autonomous-loop', false, 'For an app with few or no tests: crawl up to 20 pages in Chromium, write a smoke test per page and a test per discovered flow (sign-in needs the project secrets USERNAME and PASSWORD; skipped explains), save them tagged autonomous (a later loop updates them) and start a run with self-healing. Follow the run with svc_run_status, then svc_report.'),
  tool('svc_flaky_tests', 'Flaky tests', 'get', '/api/quality/flaky-ranking', true, 'Tests whose outcome changes with nothing about them changing, most flaky first, each with its pass/fail history (P, H, F, S; | marks an edit of the test) and its latest error.'),
  tool('svc_failure_clusters', 'Failure clusters', 'get', '/api/analytics/failure-clusters', true, 'Tests of a project that failed with the same error (ids and numbers aside) in one 15-minute window, newest first: the error signature, how many failures, the tests and the likely cause. Many tests broken at once usually share one cause.'),
  tool('svc_coverage_gaps', 'Coverage gaps', 'get', '/api/coverage/gaps', true, 'Pages discovery found that no test covers (or whose tests did not run lately), riskiest first, each with a suggested test to write (svc_generate_test can write it).'),
  tool('svc_extract', 'Extract data from the app', 'post', '/api/extract', false, 'Read data from a project\'s app in a fresh Chromium after optional steps (e.g. sign in): fields by selectors ({ "prices": { "selector": "td.price", "all": true }, "next": { "selector": "a.next", "attribute": "href" } }), or an instruction + JSON Schema answered by the server\'s model from the page\'s text. A failed step, a missing field or an answer breaking the schema is status failed with the error.'),
  tool('svc_search', 'Search tests, failures and heals', 'get', '/api/quality/semantic-search', true, 'Find by meaning what svc already knows before writing or fixing anything: tests whose name, description, tags or steps are about the query ("sign in with email"), failures of recent runs whose error or failed step matches ("timeout waiting for #checkout"), and learned heals (broken selector → working one). Exact identifiers (a selector, an error code) rank high too. kinds narrows to tests, failures or heals; project_id to one project. Each result has a score 0..1 and links to read more (svc_results for a failure\'s run). embedder.fallback true means the ranking is by words only.'),
  tool('svc_cost_breakdown', 'Model spend', 'get', '/api/cost/breakdown', true, 'What model calls cost, by day, model, task and run, for the organization or one project.'),
  tool('svc_schedules', 'Scheduled runs', 'get', '/api/schedules', true, 'The schedules of the organization or a project: cron and time zone, next run, the latest runs they started (recent_runs) and why the last one could not start (last_error).'),
  tool('svc_heal', 'Heal a test', 'post', '/api/heal', false, 'Ask for a broken test to be healed: starts a heal run of it (heal_run names it; follow it with svc_run_status and its thread_id), and says what the healer would do.'),
  tool('svc_apply_heal', 'Write heals into a test', 'post', '/api/tests/:id/apply-heal', false, 'Make a run\'s heals of a test permanent: the healed locators are written into the test as a new revision (source healed). Refused (409) when the run healed nothing, its last execution failed, or the test changed since.'),
  tool('svc_ask', 'Ask', 'post', '/api/chat', false, 'A question in plain language about tests, runs and heals, answered from stored data.'),
  tool('svc_agent', 'Agent', 'post', '/api/agent/invoke', false, 'Hand svc a goal in plain language ("run the checkout tests of Shop and explain the failures", "find untested pages and write tests for them"): a model on the svc server calls svc\'s tools step by step with your rights and answers. steps lists every call it made and its result; status says whether it concluded (answered) or stopped at max_steps. read_only: true offers it only tools that read. Needs a model configured on the server (else NOT_CONFIGURED).'),
];
