import type { Locator } from '../../contracts/steps.ts';
import type { LinkInfo } from './safety.ts';

/** A form field as read from the live DOM. */
export interface FieldInfo {
  tag: string;
  type: string;
  name?: string;
  id?: string;
  label?: string;
  placeholder?: string;
  required?: boolean;
  /** Options of a <select>, values. */
  options?: string[];
}

export interface FormInfo {
  method: string;
  action: string;
  id?: string;
  fields: FieldInfo[];
  /** Visible text of the submit control, if any. */
  submitText?: string;
  /** True for a text input outside any <form> that acts on Enter (e.g. TodoMVC's new-todo). */
  standalone?: boolean;
}

/** An interactive element with its best selector. */
export interface ElementInfo {
  locator: Locator;
  /** The locator rendered as one Playwright selector string. */
  selector: string;
  strategy: string;
  unique: boolean;
  category: string;
  label: string | null;
  tag: string;
  inputType?: string;
  href?: string;
}

/** What the crawler saw on one page. */
export interface PageSnapshot {
  url: string;
  title: string;
  depth: number;
  status?: number;
  /** Set when the page did not finish loading or could not be read: why. */
  partial?: string;
  headings: string[];
  links: LinkInfo[];
  forms: FormInfo[];
  elements: ElementInfo[];
  /** Number of list-like containers with items (tables, ul/ol with li). */
  lists: number;
  /** Count of <li>/<tr> items, for list-vs-detail classification. */
  listItems: number;
  textLength: number;
  /** Where the server or the page redirected to, when that is another URL. */
  redirectedTo?: string;
  /** Whether the body is a JSON document rendered by the browser. */
  json?: boolean;
}
