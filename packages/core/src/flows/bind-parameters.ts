/**
 * A flow's {{param}} replaced by the value its use step gives (or the default). Only the
 * flow's own parameter names are replaced; any other {{name}} (the test's parameters,
 * saved values, {{secrets.X}}) is left for the runner, so a flow sees the test's
 * variables. Binding happens once, when the flow is expanded: a value that itself names a
 * variable ("{{user_email}}") is inserted as written and resolved when the step runs,
 * never scanned again for the flow's parameters.
 *
 * A string that is exactly one parameter takes the value with its type (a number stays a
 * number), as the runner's variables do.
 */
const PARAM = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const WHOLE = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;

export function bindParameters<T>(value: T, args: Record<string, unknown>): T {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole && Object.prototype.hasOwnProperty.call(args, whole[1])) return args[whole[1]] as T;
    return value.replace(PARAM, (m, name: string) => (Object.prototype.hasOwnProperty.call(args, name) ? String(args[name]) : m)) as T;
  }
  if (Array.isArray(value)) return value.map((v) => bindParameters(v, args)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = bindParameters(v, args);
    return out as T;
  }
  return value;
}
