import type { Step, Locator, Assertion } from '../contracts/steps.ts';

/** A locator as one short, readable string for reports and error messages. */
export function describeLocator(locator: Locator): string {
  if (typeof locator === 'string') return locator;
  if ('role' in locator) return `role=${locator.role}${locator.name !== undefined ? `[name=${JSON.stringify(locator.name)}]` : ''}`;
  if ('test_id' in locator) return `test_id=${locator.test_id}`;
  if ('label' in locator) return `label=${JSON.stringify(locator.label)}`;
  if ('placeholder' in locator) return `placeholder=${JSON.stringify(locator.placeholder)}`;
  if ('text' in locator) return `text=${JSON.stringify(locator.text)}`;
  if ('css' in locator) return locator.css;
  return `xpath=${locator.xpath}`;
}

export function describeAssertion(a: Assertion): string {
  const matcher = (v: { equals?: unknown; contains?: unknown; matches?: unknown }) =>
    v.equals !== undefined ? `= ${JSON.stringify(v.equals)}` : v.contains !== undefined ? `contains ${JSON.stringify(v.contains)}` : v.matches !== undefined ? `matches /${v.matches}/` : '';
  switch (a.type) {
    case 'visible':
    case 'hidden':
    case 'enabled':
    case 'disabled':
      return `expect ${describeLocator(a.selector)} ${a.type}`;
    case 'text':
    case 'value':
      return `expect ${a.type} of ${describeLocator(a.selector)} ${matcher(a)}`;
    case 'url':
    case 'title':
      return `expect ${a.type} ${matcher(a)}`;
    case 'count':
      return `expect count of ${describeLocator(a.selector)} ${a.equals !== undefined ? `= ${a.equals}` : `in [${a.min ?? 0}, ${a.max ?? '∞'}]`}`;
    case 'attribute':
      return `expect ${describeLocator(a.selector)}[${a.attribute}] ${a.exists !== undefined ? (a.exists ? 'exists' : 'absent') : matcher(a)}`;
    case 'no_console_error':
      return `expect no console error${a.contains !== undefined ? ` containing ${JSON.stringify(a.contains)}` : a.matches !== undefined ? ` matching /${a.matches}/` : ''}`;
    case 'visual':
      return `expect ${a.selector !== undefined ? describeLocator(a.selector) : a.full_page ? 'the full page' : 'the page'} to look like baseline ${a.baseline !== undefined ? JSON.stringify(a.baseline) : '(unnamed)'}`;
    case 'accessibility':
      return `expect ${a.selector !== undefined ? describeLocator(a.selector) : 'the page'} to be accessible (${a.min_impact ?? 'serious'} or worse${a.max_violations ? `, ${a.max_violations} allowed` : ''})`;
    case 'status':
      return `expect status ${a.equals ?? `in ${JSON.stringify(a.in)}`}`;
    case 'header':
      return `expect header ${a.header} ${a.exists !== undefined ? (a.exists ? 'exists' : 'absent') : matcher(a)}`;
    case 'json':
      return `expect ${a.path} ${a.exists !== undefined ? (a.exists ? 'exists' : 'absent') : matcher(a)}`;
    case 'json_schema':
      return 'expect body to match JSON Schema';
    case 'response_time':
      return `expect response within ${a.max_ms} ms`;
    case 'row_count':
      return `expect row count ${a.equals !== undefined ? `= ${a.equals}` : `in [${a.min ?? 0}, ${a.max ?? '∞'}]`}`;
    case 'cell':
      return `expect row ${a.row}.${a.column} ${a.is_null !== undefined ? (a.is_null ? 'is NULL' : 'is not NULL') : a.matches !== undefined ? `matches /${a.matches}/` : `= ${JSON.stringify(a.equals)}`}`;
  }
}

/** One line per step, e.g. click "#buy", GET /api/items. */
export function describeStep(step: Step): string {
  switch (step.type) {
    case 'goto':
      return `goto ${step.url}`;
    case 'fill':
      return `fill ${describeLocator(step.selector)} with ${JSON.stringify(step.value)}`;
    case 'type':
      return `type ${JSON.stringify(step.text)} into ${describeLocator(step.selector)}`;
    case 'press':
      return `press ${step.key}${step.selector ? ` on ${describeLocator(step.selector)}` : ''}`;
    case 'select':
      return `select ${JSON.stringify(step.value ?? step.label ?? step.values)} in ${describeLocator(step.selector)}`;
    case 'upload':
      return `upload ${step.files.map((f) => f.name).join(', ')} to ${describeLocator(step.selector)}`;
    case 'scroll':
      return `scroll ${step.selector ? describeLocator(step.selector) : step.to ?? `by ${step.x ?? 0},${step.y ?? 0}`}`;
    case 'wait-for':
      return `wait for ${step.selector ? describeLocator(step.selector) : step.url ?? `${step.ms} ms`}`;
    case 'screenshot':
      return `screenshot${step.label ? ` ${step.label}` : ''}`;
    case 'mock':
      return `mock ${step.method ?? 'any'} ${step.url} → ${step.abort ? `network error (${step.abort})` : step.status ?? 200}${step.times ? ` (${step.times}×)` : ''}`;
    case 'request':
      return `${step.method} ${step.url}`;
    case 'sql':
      return `sql ${step.statement.replace(/\s+/g, ' ').slice(0, 80)}`;
    case 'assert':
      return describeAssertion(step.assertion);
    case 'extract':
      return `extract ${step.fields ? Object.keys(step.fields).join(', ') : `with a model: ${step.instruction!.slice(0, 80)}`}${step.save_as ? ` as {{${step.save_as}}}` : ''}`;
    case 'use':
      return `use flow ${JSON.stringify(step.flow)}${step.with && Object.keys(step.with).length ? ` with ${Object.entries(step.with).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(', ')}` : ''}`;
    default:
      return `${step.type} ${describeLocator(step.selector)}`;
  }
}
