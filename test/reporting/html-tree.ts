import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { DefaultTreeAdapterMap } from 'parse5';

/** Helpers the report tests share: walking a parse5 tree, and ajv 8 for the JSON report's schema. */

export type Node = DefaultTreeAdapterMap['node'];
export type Element = DefaultTreeAdapterMap['element'];

/** Every element below a node, in document order. */
export function elements(node: Node): Element[] {
  const out: Element[] = [];
  const visit = (n: Node) => {
    if ('tagName' in n) out.push(n);
    if ('childNodes' in n) for (const c of n.childNodes) visit(c);
  };
  visit(node);
  return out;
}
export const textOf = (node: Node): string => (node.nodeName === '#text' ? (node as DefaultTreeAdapterMap['textNode']).value : 'childNodes' in node ? node.childNodes.map(textOf).join('') : '');
export const attr = (el: Element, name: string) => el.attrs.find((a) => a.name === name)?.value;
export const byClass = (els: Element[], cls: string) => els.filter((e) => (attr(e, 'class') ?? '').split(/\s+/).includes(cls));
export const byTag = (els: Element[], tag: string) => els.filter((e) => e.tagName === tag);

// ajv 8 (JSON Schema 2020-12) is core's dependency; the root's ajv is v6, so resolve it as core does.
type Validate = ((data: unknown) => boolean) & { errors?: unknown };
export const { Ajv2020 } = createRequire(join(import.meta.dirname, '../../packages/core/package.json'))('ajv/dist/2020.js') as { Ajv2020: new (options: object) => { compile(schema: object): Validate } };
