/** One abortable sleep for the whole code base (it lives in core, which the visual check needs it in). */
export { sleep } from '@svc/core/sleep';
