import { $ } from './dom.js';
import { commentsSection } from './comments.js';

/**
 * The review comments on a test's definition (target_type test), in a panel of the Tests
 * panel as its history is (test-history.js): everyone reads them, members write (comments.js).
 */

const el = {
  panel: $('test-comments'),
  heading: $('test-comments-heading'),
  body: $('test-comments-body'),
  close: /** @type {HTMLButtonElement} */ ($('test-comments-close')),
};

/**
 * Shows the comments on a test.
 * @param {{ id: string, name: string }} test
 * @param {{ canWrite: boolean }} options
 */
export function openTestComments(test, { canWrite }) {
  el.heading.textContent = `Comments · ${test.name}`;
  el.panel.dataset.testId = test.id;
  el.body.replaceChildren(commentsSection({ targetType: 'test', targetId: test.id, canWrite, titled: false }).element);
  el.panel.hidden = false;
  el.panel.scrollIntoView({ block: 'nearest' });
}

/** Hides the comments (only if they are a test's, when `testId` is given: a deleted test's). @param {string} [testId] */
export function closeTestComments(testId) {
  if (testId && el.panel.dataset.testId !== testId) return;
  el.body.replaceChildren();
  delete el.panel.dataset.testId;
  el.panel.hidden = true;
}

el.close.addEventListener('click', () => closeTestComments());
