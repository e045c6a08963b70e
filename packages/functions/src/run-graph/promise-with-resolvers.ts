/**
 * aws-local-stepfunctions (the local ASL interpreter) calls Promise.withResolvers in every
 * Task state; that arrived in Node 22, and svc supports Node ≥ 20.19 (engines). Without
 * it every Task of a local execution throws "Promise.withResolvers is not a function": the
 * run fails at its first node and no test runs. This adds the standard method where the
 * runtime lacks it (same semantics as the built-in); on Node 22+ it does nothing.
 */
type WithResolvers = <T>() => { promise: Promise<T>; resolve: (value: T | PromiseLike<T>) => void; reject: (reason?: unknown) => void };

const P = Promise as unknown as { withResolvers?: WithResolvers };
if (typeof P.withResolvers !== 'function') {
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers<T>() {
      let resolve!: (value: T | PromiseLike<T>) => void;
      let reject!: (reason?: unknown) => void;
      const promise = new Promise<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}

export {};
