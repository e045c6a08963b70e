/**
 * The stylesheet of the HTML report, inlined into every report. No fonts, images or URLs:
 * the report must render the same offline. Light and dark follow the reader's system.
 * The filters are radio buttons placed before <nav> and <main>, so CSS alone can hide cards.
 */
export const HTML_STYLE = `
:root {
  color-scheme: light dark;
  --bg: #f6f7f9; --card: #ffffff; --text: #1f2328; --muted: #5f6b7a; --line: #e3e6ea; --code-bg: #f0f2f5;
  --passed: #1a7f37; --failed: #c62a2f; --healed: #7048e8; --skipped: #8b949e;
  --passed-bg: #e8f5ec; --failed-bg: #fdecec; --healed-bg: #f0ebff; --skipped-bg: #f0f1f3;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #111418; --card: #1a1f25; --text: #e6e8eb; --muted: #9aa4b1; --line: #2b323b; --code-bg: #232a33;
    --passed: #4ac26b; --failed: #ff6b6b; --healed: #a98bff; --skipped: #8b949e;
    --passed-bg: #16301f; --failed-bg: #3a1c1e; --healed-bg: #2a2342; --skipped-bg: #262b31;
  }
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1100px; padding: 24px 20px 48px; background: var(--bg); color: var(--text);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 13px; }
code { background: var(--code-bg); border-radius: 4px; padding: 1px 5px; overflow-wrap: anywhere; }
pre { background: var(--code-bg); border-radius: 6px; padding: 10px 12px; margin: 6px 0; white-space: pre-wrap; overflow-wrap: anywhere; }
h1 { font-size: 22px; margin: 0 0 4px; overflow-wrap: anywhere; }
h3 { font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 18px 0 6px; }
header { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 20px; border-top: 4px solid var(--passed); }
header.run-failed { border-top-color: var(--failed); }
.meta, .rate, .test-id, footer { color: var(--muted); font-size: 13px; }
.meta { margin: 0 0 14px; }
.meta.run-error { color: var(--failed); font-weight: 600; }
.totals { display: flex; flex-wrap: wrap; gap: 10px; }
.stat { min-width: 96px; padding: 8px 12px; border-radius: 8px; background: var(--bg); }
.stat .num { display: block; font-size: 22px; font-weight: 600; }
.stat .label { font-size: 12px; color: var(--muted); }
.stat.passed .num { color: var(--passed); } .stat.failed .num { color: var(--failed); }
.stat.healed .num { color: var(--healed); } .stat.skipped .num { color: var(--skipped); }
.bar { display: flex; height: 10px; border-radius: 5px; overflow: hidden; background: var(--line); margin-top: 16px; }
.seg.passed { background: var(--passed); } .seg.failed { background: var(--failed); }
.seg.healed { background: var(--healed); } .seg.skipped { background: var(--skipped); }
.rate { margin: 6px 0 0; }
.filter { position: absolute; opacity: 0; pointer-events: none; }
.filters { display: flex; gap: 8px; margin: 18px 0 12px; }
.filters label { cursor: pointer; padding: 5px 14px; border-radius: 999px; border: 1px solid var(--line); background: var(--card); font-size: 14px; user-select: none; }
.filters label span { color: var(--muted); margin-left: 4px; }
#f-all:checked ~ nav label[for="f-all"], #f-failed:checked ~ nav label[for="f-failed"], #f-healed:checked ~ nav label[for="f-healed"] { background: var(--text); color: var(--card); border-color: var(--text); }
#f-all:checked ~ nav label[for="f-all"] span, #f-failed:checked ~ nav label[for="f-failed"] span, #f-healed:checked ~ nav label[for="f-healed"] span { color: inherit; opacity: .75; }
#f-all:focus-visible ~ nav label[for="f-all"], #f-failed:focus-visible ~ nav label[for="f-failed"], #f-healed:focus-visible ~ nav label[for="f-healed"] { outline: 2px solid var(--healed); outline-offset: 2px; }
#f-failed:checked ~ main .card:not(.failed), #f-healed:checked ~ main .card:not(.healed) { display: none; }
.only-failed, .only-healed { display: none; }
#f-failed:checked ~ main:not(:has(.card.failed)) .only-failed, #f-healed:checked ~ main:not(:has(.card.healed)) .only-healed { display: block; }
.empty { color: var(--muted); padding: 12px 4px; }
.card { background: var(--card); border: 1px solid var(--line); border-left: 4px solid var(--skipped); border-radius: 8px; margin: 0 0 10px; }
.card.passed { border-left-color: var(--passed); } .card.failed { border-left-color: var(--failed); } .card.healed { border-left-color: var(--healed); }
.card > summary { display: flex; align-items: center; gap: 10px; padding: 10px 14px; cursor: pointer; list-style: none; }
.card > summary::-webkit-details-marker { display: none; }
.card > summary::before { content: "▸"; color: var(--muted); transition: transform .15s; }
.card[open] > summary::before { transform: rotate(90deg); }
.card .name { flex: 1; font-weight: 500; overflow-wrap: anywhere; }
.card .type, .card .assertions, .card .dur { color: var(--muted); font-size: 13px; white-space: nowrap; }
.card .body { padding: 0 16px 14px 38px; }
.badge { font-size: 12px; font-weight: 600; padding: 2px 8px; border-radius: 999px; white-space: nowrap; }
.badge.passed { color: var(--passed); background: var(--passed-bg); } .badge.failed { color: var(--failed); background: var(--failed-bg); }
.badge.healed { color: var(--healed); background: var(--healed-bg); } .badge.skipped { color: var(--skipped); background: var(--skipped-bg); }
.badge.small { font-size: 11px; padding: 0 6px; margin-left: 6px; }
.error { background: var(--failed-bg); border-radius: 8px; padding: 10px 12px; margin-top: 8px; }
.error p { margin: 0 0 4px; }
.error pre { background: var(--card); }
.kind { font: 600 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; color: var(--failed); text-transform: uppercase; letter-spacing: .03em; }
.stack summary { cursor: pointer; color: var(--muted); font-size: 13px; }
.steps { list-style: none; padding: 0; margin: 0; }
.step { display: grid; grid-template-columns: 22px 1fr auto; gap: 4px 8px; padding: 4px 0; border-bottom: 1px dashed var(--line); align-items: baseline; }
.step:last-child { border-bottom: 0; }
.step .icon { text-align: center; font-weight: 700; }
.step.passed .icon { color: var(--passed); } .step.failed .icon { color: var(--failed); } .step.skipped { color: var(--muted); }
.step .dur { color: var(--muted); font-size: 12px; white-space: nowrap; }
.step-name { color: var(--muted); font-size: 13px; margin-left: 6px; }
.step-error { grid-column: 2 / 4; color: var(--failed); font-size: 13px; white-space: pre-wrap; overflow-wrap: anywhere; }
.step-extracted { grid-column: 2 / 4; margin: 4px 0 0; font-size: 12px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 240px; overflow: auto; }
table.heals { border-collapse: collapse; width: 100%; font-size: 13px; }
table.heals th, table.heals td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
p.flaky { margin: 0 0 8px; padding: 6px 10px; border-left: 4px solid #d97706; background: #fffbeb; color: #78350f; font-size: 13px; }
code.before { text-decoration: line-through; text-decoration-color: var(--failed); }
code.after { color: var(--healed); }
.shots { display: flex; flex-wrap: wrap; gap: 12px; }
figure { margin: 0; max-width: 100%; }
figure img { display: block; max-width: min(100%, 520px); border: 1px solid var(--line); border-radius: 6px; }
figcaption { font-size: 12px; color: var(--muted); margin-top: 4px; }
figure.missing .note { margin: 0; padding: 10px 12px; border: 1px dashed var(--line); border-radius: 6px; color: var(--muted); font-size: 13px; }
.visuals { list-style: none; padding: 0; margin: 0; }
.visual { padding: 6px 0 10px; border-bottom: 1px dashed var(--line); }
.visual:last-child { border-bottom: 0; }
.visual-head, .visual-message { margin: 0; }
.visual-diff, .visual-message { color: var(--muted); font-size: 13px; overflow-wrap: anywhere; }
.shots.compare { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); margin-top: 8px; }
.compare figure img { max-width: 100%; }
.a11ys { list-style: none; padding: 0; margin: 0; }
.a11y { padding: 6px 0 10px; }
.a11y-head { margin: 0 0 6px; }
.a11y-summary { color: var(--muted); font-size: 13px; }
.a11y-violations td { vertical-align: top; overflow-wrap: anywhere; }
.impact.critical, .impact.serious { font-weight: 600; }
.log { padding-left: 18px; margin: 0; font-size: 13px; }
.log pre { margin: 2px 0; }
.log .method { font-weight: 600; }
.log .url { overflow-wrap: anywhere; }
.trace { font-size: 13px; color: var(--muted); margin-top: 14px; }
footer { margin-top: 28px; text-align: center; }
/*
 * Paper (the PDF report, or a reader printing the HTML): the light palette whatever the
 * system's, no page background or centred column (the page margins frame it), nothing that
 * needs a click, and no row, figure, step or error block cut across two pages. A card may
 * still break between its parts: one test with many steps is longer than a page.
 */
@media print {
  :root {
    color-scheme: light;
    --bg: #ffffff; --card: #ffffff; --text: #1f2328; --muted: #5f6b7a; --line: #d9dde3; --code-bg: #f0f2f5;
    --passed: #1a7f37; --failed: #c62a2f; --healed: #7048e8; --skipped: #6e7781;
    --passed-bg: #e8f5ec; --failed-bg: #fdecec; --healed-bg: #f0ebff; --skipped-bg: #f0f1f3;
  }
  body { max-width: none; padding: 0; font-size: 12px; }
  code, pre { font-size: 11px; }
  .filter, .filters, .only-failed, .only-healed { display: none !important; }
  header { margin-bottom: 12px; }
  .card > summary { cursor: auto; }
  .card > summary::before { content: none; }
  .card .body { padding-left: 16px; }
  /* Not the error block or a long pre (a stack trace): kept whole, they would leave half a page blank. */
  header, .card > summary, .test-id, .where, pre.message, .step, tr, figure, .visual-head, .a11y-head, p.flaky, .log li { break-inside: avoid; }
  h3, .card > summary, .visual-head, .a11y-head { break-after: avoid; }
  thead { display: table-header-group; }
  figure img { max-width: 100%; max-height: 220mm; object-fit: contain; }
  .shots:not(.compare) figure img { max-width: min(100%, 120mm); }
  a { color: inherit; }
}
`;
