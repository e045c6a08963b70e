/**
 * A tool's input schema in one line for the agent's model: each field with its type, `?`
 * when optional, small enums spelled out, and the start of its description. The gateway's
 * JSON Schemas (~67 KB for every tool) are written for assistants that read them once; the
 * agent sends its tool list on every turn, so it sends this (~3× smaller) instead. The API
 * still validates the full form and names any field at fault, which the model then reads.
 */
type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  description?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
};

/**
 * Characters of a field's description kept. A list of objects (test steps, assertions)
 * keeps more, and its items' description too: that is where their kinds and fields are listed.
 */
const DESCRIPTION_CHARS = 90;
const OBJECT_LIST_DESCRIPTION_CHARS = 400;
const ITEM_KINDS_CHARS = 2_500;
const MAX_ENUM = 8;

export function toolSignature(schema: Record<string, unknown>): string {
  const s = schema as Schema;
  if (!s.properties || Object.keys(s.properties).length === 0) return '{}';
  return `{ ${fields(s).join('; ')} }`;
}

function fields(s: Schema): string[] {
  const required = new Set(s.required ?? []);
  return Object.entries(s.properties ?? {}).map(([name, p]) => {
    const listOfObjects = typeOf(p) === 'array' && p.items !== undefined && typeOf(p.items) === 'object';
    const about = listOfObjects
      ? [describe(p.description, OBJECT_LIST_DESCRIPTION_CHARS), describe(p.items!.description, ITEM_KINDS_CHARS)].filter(Boolean).join(' ')
      : describe(p.description, DESCRIPTION_CHARS);
    return `${name}${required.has(name) ? '' : '?'}: ${typeText(p)}${about ? ` — ${about}` : ''}`;
  });
}

function typeText(p: Schema): string {
  if (p.const !== undefined) return JSON.stringify(p.const);
  if (p.enum && p.enum.length <= MAX_ENUM) return p.enum.map((v) => JSON.stringify(v)).join('|');
  const alternatives = p.anyOf ?? p.oneOf;
  if (alternatives) return [...new Set(alternatives.map(typeText))].join(' or ');
  const type = typeOf(p);
  if (type === 'array') return `${p.items ? typeText(p.items) : 'any'}[]`;
  if (type === 'object') return p.properties && Object.keys(p.properties).length <= 6 ? `{ ${fields(p).join('; ')} }` : 'object';
  if ((type === 'integer' || type === 'number') && (p.minimum !== undefined || p.maximum !== undefined)) return `${type} ${p.minimum ?? ''}..${p.maximum ?? ''}`;
  if (type === 'string' && p.format) return `string (${p.format})`;
  return type ?? 'any';
}

function typeOf(p: Schema): string | undefined {
  return Array.isArray(p.type) ? p.type.find((t) => t !== 'null') : p.type;
}

/** The first sentence, at most `max` characters. */
function describe(text: string | undefined, max: number): string {
  if (!text) return '';
  const flat = text.replace(/\s+/g, ' ').trim();
  const sentence = max > DESCRIPTION_CHARS ? flat : (flat.split(/(?<=\.)\s/)[0] ?? flat);
  return sentence.length > max ? `${sentence.slice(0, max - 1)}…` : sentence;
}
