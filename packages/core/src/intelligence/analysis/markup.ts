import { emptyExtracted, type Extracted, type UiForm } from './types.ts';
import { elementFrom, fieldFrom, isFieldTag } from './selectors.ts';
import { lineAt } from './secrets.ts';

/**
 * HTML and templates (Vue, Svelte, Handlebars, EJS, Nunjucks...) by tolerant regex: no
 * template language is executed. Only static attribute values count; bound ones
 * (`:data-testid="x"`, `{{id}}`, `<%= id %>`) are dynamic and skipped.
 */

// Attribute names exclude '<' and values are bounded, so an unclosed tag or quote ends the
// attempt early: linear on broken markup.
const tagRe = /<([A-Za-z][\w:-]{0,64})((?:\s+(?:[^\s"'<>/=]+)(?:\s*=\s*(?:"[^"]{0,1024}"|'[^']{0,1024}'|[^\s"'=<>`]+))?)*)\s*\/?>/g;
const attrRe = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

function parseAttrs(raw: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  attrRe.lastIndex = 0;
  for (let m = attrRe.exec(raw); m; m = attrRe.exec(raw)) {
    const name = m[1];
    if (name.startsWith(':') || name.startsWith('v-bind:') || name.startsWith('[') || name.startsWith('@')) continue;
    const value = m[2] ?? m[3] ?? m[4] ?? 'true';
    if (/\{\{|<%|\$\{|\{[^}]*\}/.test(value)) continue; // template expression: not a static value
    attrs[name.toLowerCase()] = value;
  }
  return attrs;
}

export function extractMarkup(path: string, text: string): Extracted {
  const out = emptyExtracted();
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  // Comments and script/style bodies hold no elements; blank them out keeping offsets.
  const blanked = text.replace(/<!--[\s\S]*?-->|(<(script|style)\b[^>]*>)[\s\S]*?(<\/\2\s*>)/gi, (m) => m.replace(/[^\n]/g, ' '));
  let openForm: { form: UiForm; depth: number } | undefined;
  const formClose = /<\/form\s*>/gi;
  const closes: number[] = [];
  for (let m = formClose.exec(blanked); m; m = formClose.exec(blanked)) closes.push(m.index);

  tagRe.lastIndex = 0;
  for (let m = tagRe.exec(blanked); m; m = tagRe.exec(blanked)) {
    const tag = m[1].toLowerCase();
    const attrs = parseAttrs(m[2] ?? '');
    const line = lineAt(starts, m.index);
    if (openForm && closes.some((c) => c < m!.index && c > openForm!.depth)) openForm = undefined;
    const element = elementFrom(tag, attrs);
    if (element) out.elements.push({ file: path, line, ...element });
    if (tag === 'form') {
      const form: UiForm = { file: path, line, fields: [] };
      if (attrs.action) form.action = attrs.action;
      if (attrs.method) form.method = attrs.method.toUpperCase();
      const sel = element?.selector ?? (attrs.id ? `form#${attrs.id}` : attrs.name ? `form[name="${attrs.name}"]` : attrs.action ? `form[action="${attrs.action}"]` : undefined);
      if (sel) form.selector = sel;
      out.forms.push(form);
      openForm = { form, depth: m.index };
    } else if (openForm && isFieldTag(tag)) {
      openForm.form.fields.push(fieldFrom(tag, attrs));
    }
  }
  if (/\.vue$/i.test(path)) out.frameworks.push('vue');
  if (/\.svelte$/i.test(path)) out.frameworks.push('svelte');
  return out;
}
