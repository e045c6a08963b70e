import { describe, expect, it } from 'vitest';
import { renderMarkdownReport } from '@svc/core/reporting/markdown-report';
import { SCRIPT_NAME, failedAssertion, failedAtLocator, healed, makeSummary, passedLogin } from './fixtures.ts';

describe('Markdown report', () => {
  const md = renderMarkdownReport(makeSummary());

  it('starts with the verdict and the totals table', () => {
    const lines = md.split('\n');
    expect(lines[0]).toMatch(/^## ❌ Failed — Nightly &lt;staging&gt; &amp; "prod"$/);
    expect(md).toContain(['| Total | Passed | Failed | Healed | Skipped | Duration |', '| ---: | ---: | ---: | ---: | ---: | ---: |', '| 8 | 3 | 3 | 1 | 1 | 40.4 s |'].join('\n'));
  });

  it('has one section per failed test with the failing step, error kind and message', () => {
    expect(md).toContain('### Failed tests (3)');
    expect(md.match(/^#### ❌ /gm)).toHaveLength(3);
    const section = md.slice(md.indexOf('#### ❌ Checkout'), md.indexOf('#### ❌ POST'));
    expect(section).toContain('#### ❌ Checkout \\| buy \\`now\\`');
    expect(section).toContain('- **Failing step:** 3. `click "#buy-now"`');
    expect(section).toContain('- **Error:** `locator`');
    expect(section).toContain('```text\nNo element matches #buy-now (waited 5000 ms)\nLast URL: https://shop.example.test/cart\n```');
    expect(section).toContain('<summary>Stack trace</summary>');
    expect(section).toContain('Uncaught TypeError: cart is undefined');
    expect(section).toContain('POST https://shop.example.test/api/cart?x=1&y=<2> — net::ERR_CONNECTION_REFUSED');
    expect(section).toContain('npx playwright show-trace');
    const api = md.slice(md.indexOf('#### ❌ POST'));
    expect(api).toContain('- **Failing step:** 2. `assert status equals 201`');
    expect(api).toContain('- **Error:** `assertion`');
    // Passed tests get no section.
    expect(md).not.toContain('#### ❌ Login works');
  });

  it('lists healed selectors before → after with confidence', () => {
    expect(md).toContain('### 🩹 Healed selectors (2)');
    expect(md).toContain('| Search finds products | 2 | `#q` | `input[name="query"]` | 93% |');
    // A pipe inside a code span is escaped, or it would end the table cell.
    expect(md).toContain('| Search finds products | 4 | `.result \\| .item` | `[data-testid="result"]` | 81% |');
  });

  it('escapes names so they cannot inject HTML or mention people', () => {
    expect(md).not.toContain('<script>');
    const withMention = renderMarkdownReport(makeSummary([{ ...failedAssertion, name: `${SCRIPT_NAME} @octocat` }]));
    expect(withMention).toContain('&lt;script&gt;alert(1)&lt;/script&gt; search @\u200Boctocat');
    expect(withMention).not.toContain('<script>');
  });

  it('a name that starts like a list item stays the text of its own item (found by QA: "- 1. first" nested a list)', () => {
    const flaky = (name: string) => ({ ...passedLogin, test_id: name, name, metadata: { ...passedLogin.metadata, retries: 1 } });
    const out = renderMarkdownReport(makeSummary([flaky('1. first'), flaky('- second'), flaky('+ third'), flaky('2) fourth')]));
    expect(out).toContain('- 1\\. first — passed on attempt 2');
    expect(out).toContain('- \\- second — passed on attempt 2');
    expect(out).toContain('- \\+ third — passed on attempt 2');
    expect(out).toContain('- 2\\) fourth — passed on attempt 2');
  });

  it('keeps a code fence intact when the message itself contains backticks', () => {
    const tricky = { ...failedAssertion, error_message: 'before\n```\n<b>not code</b>\n````\nafter' };
    const out = renderMarkdownReport(makeSummary([tricky]));
    expect(out).toContain('`````text\nbefore\n```\n<b>not code</b>\n````\nafter\n`````');
  });

  it('says so when everything passed', () => {
    const out = renderMarkdownReport(makeSummary([passedLogin, healed]));
    expect(out.split('\n')[0]).toMatch(/^## ✅ Passed — /);
    expect(out).not.toContain('Failed tests');
    expect(out).toContain('| 2 | 1 | 0 | 1 | 0 | 40.4 s |');
    expect(out).toContain('</sub>\n\n### 🩹 Healed selectors');
  });

  it('stays under the length limit, naming the failures it left out', () => {
    const many = Array.from({ length: 200 }, (_, i) => ({ ...failedAtLocator, test_id: `t${i}`, name: `Failure ${i}` }));
    const out = renderMarkdownReport(makeSummary(many), { maxLength: 20_000 });
    expect(out.length).toBeLessThanOrEqual(20_000);
    expect(out).toMatch(/…and \d+ more failed test\(s\)/);
    expect(renderMarkdownReport(makeSummary(many)).length).toBeLessThanOrEqual(60_000);
  });
});
