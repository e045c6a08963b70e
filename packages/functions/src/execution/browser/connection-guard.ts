/**
 * Works around a race in playwright-core's in-process connection (seen with 1.65).
 *
 * The server serialises a command's result (say `page.goto` → a Response object) and then awaits
 * tracing's after-call hook before sending it. When the context closes in that gap — which is
 * exactly what a cancelled or timed-out test does — the Response's `__dispose__` reaches the
 * client first, and decoding the late result throws "Object with guid … was not bound in the
 * connection" from inside Playwright's message loop: an uncaught exception (it would take the
 * local server down) and a command promise that never settles (the callback was already removed).
 *
 * The guard wraps the client connection's `dispatch` so that this one error rejects the pending
 * command with Playwright's own "closed" error instead. Anything else is rethrown unchanged. It is
 * feature-detected: if Playwright's internals change shape, nothing is patched.
 */

interface PendingCommand {
  reject(error: Error): void;
}

interface ClientConnection {
  dispatch(message: { id?: number }): void;
  _callbacks: Map<number, PendingCommand>;
}

const UNBOUND_RESULT = /was not bound in the connection/;
const guarded = new WeakSet<object>();

export class TargetClosedError extends Error {
  override name = 'TargetClosedError'; // Playwright recognises closed-target errors by this name
  constructor(cause: string) {
    super(`Target page, context or browser has been closed (${cause})`);
  }
}

function clientConnectionOf(owner: unknown): ClientConnection | undefined {
  const connection = (owner as { _connection?: unknown } | null)?._connection as Partial<ClientConnection> | undefined;
  if (!connection || typeof connection.dispatch !== 'function' || !(connection._callbacks instanceof Map)) return undefined;
  return connection as ClientConnection;
}

/** Installs the guard on the connection behind a Playwright object (a Browser); once per connection. Returns whether it is installed. */
export function guardClosedTargetRace(owner: unknown): boolean {
  const connection = clientConnectionOf(owner);
  if (!connection) return false;
  if (guarded.has(connection)) return true;
  guarded.add(connection);
  const dispatch = connection.dispatch.bind(connection);
  connection.dispatch = (message) => {
    // dispatch removes the command's callback before decoding its result, so take it first
    const pending = message?.id ? connection._callbacks.get(message.id) : undefined;
    try {
      dispatch(message);
    } catch (error) {
      if (!pending || !(error instanceof Error) || !UNBOUND_RESULT.test(error.message)) throw error;
      pending.reject(new TargetClosedError(error.message));
    }
  };
  return true;
}
