/**
 * The Workflow port: where the run graph's state machine executes. Locally the ASL is
 * interpreted in-process (aws-local-stepfunctions) with the Task handlers bound to
 * functions; on AWS it is a Step Functions state machine.
 */
export interface Workflow {
  /** Starts (or, after a crash, restarts) the execution of a thread; resolves once started. */
  start(threadId: string): Promise<void>;
  /** Stops the thread's execution, if one runs here. */
  stop(threadId: string, reason: string): Promise<void>;
  /** Delivers the decision to a waiting approval Task (SendTaskSuccess). */
  sendTaskSuccess(token: string, output: Record<string, unknown>): Promise<void>;
  /** Whether an execution of the thread is running. */
  isRunning(threadId: string): boolean | Promise<boolean>;
}
