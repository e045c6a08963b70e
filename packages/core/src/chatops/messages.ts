import type { SlackCommandAnswer, SlackRunOutcomeMessage } from '../contracts/chat-integration.ts';
import type { QualityScoreResponse } from '../contracts/insights.ts';
import type { TestRun } from '../contracts/test-run.ts';
import type { FailedTest } from '../notifications/failed-tests.ts';
import { escape } from '../notifications/messages.ts';
import { blockingFailedTests, quarantinedFailedTests } from '../execution/totals.ts';

/**
 * What the slash commands say (docs/chatops.md). Everything a person or a test author
 * wrote (project and test names, errors) is escaped: Slack's mrkdwn reads `<!channel>`
 * as a mention and `<url|text>` as a link.
 */

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });

/** A message only the person who typed the command sees. */
export const ephemeral = (text: string, blocks?: Array<Record<string, unknown>>): SlackCommandAnswer => ({ response_type: 'ephemeral', text, ...(blocks ? { blocks } : {}) });

export function runStartedText(o: { runId: string; project: string; tests: number; tags: string[]; url?: string }): string {
  const which = o.tags.length ? ` tagged ${o.tags.map((t) => `#${escape(t)}`).join(', ')}` : '';
  const where = o.url ? ` against ${escape(o.url)}` : '';
  return `Started run ${o.runId}: ${plural(o.tests, 'test')}${which} of *${escape(o.project)}*${where}. The outcome is posted here when it ends.`;
}

/** "completed — 2 passed, 1 failed of 3": a run's status and totals in one line. */
export function statusText(run: TestRun, project: string): string {
  const totals = `${run.passed_tests} passed, ${run.failed_tests} failed of ${plural(run.total_tests, 'test')}`;
  const error = run.error ? `\nRun error: ${escape(run.error.slice(0, 500))}` : '';
  return `Run ${run.id} of *${escape(project)}* (${run.trigger}): *${run.status}* — ${totals}${error}`;
}

export function scoreText(score: QualityScoreResponse, project: string): string {
  if (score.score === null) return `*${escape(project)}* has no quality score yet: it has no finished run yet.`;
  const reasons = score.reasons.slice(0, 3).map((r) => `• ${escape(r)}`);
  return [`Quality score of *${escape(project)}*: *${Math.round(score.score)}* (grade ${score.grade}) over its last ${plural(score.window.runs, 'finished run')}.`, ...reasons].join('\n');
}

const VERDICT: Record<string, string> = { completed: 'passed', failed: 'failed', cancelled: 'was cancelled' };

/**
 * The outcome of a command's run, posted to the command's response_url for the channel:
 * counts, the line against the previous run (`comparison`, when there is one), the failing
 * tests with their errors (at most 10 listed), and the HTML report's link when svc knows
 * its public address.
 */
export function runOutcomeMessage(o: { run: TestRun; project: string; failed: FailedTest[]; userId: string; reportUrl?: string; comparison?: string }): SlackRunOutcomeMessage {
  const { run } = o;
  const verdict = run.status === 'completed' && blockingFailedTests(run) > 0 ? 'failed' : (VERDICT[run.status] ?? run.status);
  const quarantined = quarantinedFailedTests(run);
  const counts = `${run.passed_tests} passed, ${run.failed_tests} failed${quarantined ? ` (${quarantined} quarantined)` : ''} of ${plural(run.total_tests, 'test')}`;
  // The comparison is in the text too: it is what a client shows in its notification.
  const text = `svc: ${o.project} run ${run.id} ${verdict} — ${counts}${o.comparison ? `\n${escape(o.comparison)}` : ''}`;
  const blocks: Array<Record<string, unknown>> = [section(`*${escape(o.project)}* run \`${run.id}\` ${verdict} — ${counts} (started by <@${o.userId}>)`)];
  if (o.comparison) blocks.push(section(escape(o.comparison)));
  if (run.error) blocks.push(section(`Run error: ${escape(run.error.slice(0, 500))}`));
  if (o.failed.length) {
    const lines = o.failed.map((t) => `• *${escape(t.name)}*${t.error ? `: ${escape(t.error.slice(0, 200))}` : ''}`);
    if (run.failed_tests > o.failed.length) lines.push(`…and ${run.failed_tests - o.failed.length} more`);
    blocks.push(section(lines.join('\n')));
  }
  if (o.reportUrl) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `<${o.reportUrl}|HTML report>` }] });
  return { response_type: 'in_channel', replace_original: false, text, blocks };
}
