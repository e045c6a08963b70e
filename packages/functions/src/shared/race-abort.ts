/**
 * Settles with `work`, or rejects with `onAbort()` as soon as the signal aborts — whichever
 * comes first. The work itself is not stopped (callers close its resource); a rejection it
 * produces after the abort is swallowed so it never becomes an unhandled rejection.
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal, onAbort: () => Error): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(onAbort());
  }
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(onAbort());
    signal.addEventListener('abort', abort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', abort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', abort);
        reject(e);
      },
    );
  });
}
