import { ApiError } from './api.js';

/** Small DOM helpers shared by the dashboard's modules. */

/** @param {string} id */
export const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * @param {HTMLElement} node
 * @param {string} [message] hides the node when empty
 */
export function setMessage(node, message) {
  node.textContent = message ?? '';
  node.hidden = !message;
}

/** The API's message for an API error; a generic one for anything else. @param {unknown} err */
export function messageOf(err) {
  return err instanceof ApiError ? err.message : 'Something went wrong. Please try again.';
}
