import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { deliveryFetch } from '../net/metadata-safe-fetch.ts';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { createStore } from '@svc/core/store/index';
import { storeBaselineStore } from '@svc/core/store/baseline-store';
import { systemClock } from '@svc/core/ports/clock';
import { createCheckpointer } from '@svc/core/run-graph/checkpointer';
import { createEventLog } from '@svc/core/run-graph/event-log';
import { threadsRepo } from '@svc/core/run-graph/threads';
import { approvalsRepo } from '@svc/core/run-graph/approvals-repo';
import { createGraphTasks, type GraphTasks, type TaskResource } from '@svc/core/run-graph/tasks';
import type { GraphDeps } from '@svc/core/run-graph/deps';
import { runHooks } from '@svc/core/services/run-hooks';
import { DynamoDbTable } from '../aws/dynamodb-table.ts';
import { S3Blobs } from '../aws/s3-blobs.ts';
import { createLogger } from '../shared/logger.ts';
import { createPlaywrightDriver } from '../execution/browser/playwright-driver.ts';
import { createSqlDriver } from '../execution/sql/sql-driver.ts';
import { createExecutionEnvs, extractModelOf, type ExecutionEnvs } from './execution-env.ts';
import { createDomHealer, projectHealingSettingsIn, revertedFixesIn } from './dom-healer.ts';
import { blobArtifacts } from './blob-artifacts.ts';
import { createSfnWorkflow } from './sfn-workflow.ts';
import { loadRunGraphLambdaConfig } from './lambda-config.ts';
import { serverStepHealer } from './server-step-healer.ts';
import { createRepositoryAnalyzer } from './repository-analyzer.ts';
import { withIngestedKnowledge } from '@svc/core/knowledge/ingested-analyzer';
import { taskEventPublisher } from './lambda-publisher.ts';
import { embedderFromEnv } from '../embeddings/from-env.ts';
import { parseAnalyzeRoots } from '../intelligence/read-repository.ts';
import { createLlmFromEnv } from '../llm/from-env.ts';
import { visionLocatorFromEnv } from '../llm/vision-locator.ts';
import { EmfAlertSink } from '../aws/events/emf-alert-sink.ts';
import { kmsSecretCipher } from '../secrets/kms-cipher.ts';

/**
 * Lambda entry points of the run graph's Task states (one per Task resource of
 * asl/run-graph.asl.json; infra/run-graph.ts deploys each). They call the same core
 * handlers as the local interpreter binding. Built once per container.
 *
 * Cancellation: a cancelled run's execution is stopped by Step Functions; a Task already
 * running notices within a couple of seconds (its run is polled) and aborts its test,
 * closing the browser.
 */
interface Built {
  tasks: GraphTasks;
  deps: GraphDeps;
  envs: ExecutionEnvs;
  watch(threadId: string): () => void;
}

let built: Promise<Built> | undefined;

function build(): Promise<Built> {
  built ??= (async () => {
    const config = loadRunGraphLambdaConfig(process.env);
    const logger = createLogger(config.logLevel, 'svc-run-graph');
    const table = new DynamoDbTable({ tableName: config.tableName, client: new DynamoDBClient({ region: config.region }) });
    const blobs = new S3Blobs({ bucket: config.bucketName, client: new S3Client({ region: config.region }) });
    const store = createStore(table, systemClock, { cipher: kmsSecretCipher(config) });
    const threads = threadsRepo(table);
    const sfn = createSfnWorkflow({ client: new SFNClient({ region: config.region }), stateMachineArn: '', executions: { save: (t, arn) => threads.setExecution(t, arn), get: (t) => threads.execution(t) } });
    const publisher = taskEventPublisher(process.env, config.region, logger);
    // Models as in the API function (aws/deps.ts; settings from infra/model-settings.ts): usage
    // and budgets in the table, budget alerts as EMF lines. Unconfigured → NO_MODEL, no vision.
    // No metrics registry: nothing scrapes a task function.
    const llm = createLlmFromEnv(process.env, { store, clock: systemClock, alerts: new EmfAlertSink(), logger });
    const vision = visionLocatorFromEnv(process.env, llm);
    // The same in-step healing as a local server run: the table's patterns, cache and memory for the run's
    // project, and with a model the chooser that arbitrates ambiguous rankings.
    const stepHealer = serverStepHealer({ store, clock: systemClock, embedder: embedderFromEnv(process.env), publisher, llm });
    // With SVC_LLM_VISION, each run's browser gets the vision fallback's model, paid by the run's organization.
    const browser = (run?: { threadId: string; organizationId: string }) =>
      createPlaywrightDriver({ zygote: false, vision: run ? vision?.({ organizationId: run.organizationId, runId: run.threadId }) : undefined });
    const envs = createExecutionEnvs({
      store,
      artifactsDir: '/tmp/svc-artifacts',
      artifacts: (t) => blobArtifacts(blobs, t),
      sql: createSqlDriver(),
      browser,
      stepHealer,
      // Extract steps with an instruction (NO_MODEL without one).
      extractModel: extractModelOf(llm),
      // Visual baselines: records in the table, images in the artifacts bucket (served by the API's /api/visual routes).
      baselines: (run) => storeBaselineStore(store, blobs, run.organizationId, run.projectId),
    });
    const controllers = new Map<string, AbortController>();
    const deps: GraphDeps = {
      store,
      checkpointer: createCheckpointer(store.checkpoints, systemClock),
      events: createEventLog(table, systemClock),
      threads,
      approvals: approvalsRepo(table),
      clock: systemClock,
      logger,
      execution: (run) => envs.forRun(run),
      // self_heal replays the failed test in this Lambda's Chromium (released after the invocation).
      healer: createDomHealer({ execution: (run) => envs.forRun(run), reverted: revertedFixesIn(store), settings: projectHealingSettingsIn(store) }),
      // A Lambda has no repositories on disk unless SVC_ANALYZE_ROOTS names a mounted one (EFS, a layer);
      // otherwise the project's latest codebase analysed by the knowledge worker (an upload).
      analyzer: withIngestedKnowledge({ store, blobs, live: createRepositoryAnalyzer({ store, roots: parseAnalyzeRoots(process.env.SVC_ANALYZE_ROOTS) }) }),
      publisher,
      // As in the local run manager (run-hooks.ts), but awaited: a Lambda is frozen once its
      // invocation returns, so a status still on its way would not be sent.
      ...runHooks({ store, clock: systemClock, logger, publicUrl: config.publicUrl, fetch: deliveryFetch }),
      signal: (threadId) => (controllers.get(threadId) ?? new AbortController()).signal,
      sendTaskSuccess: (token, output) => sfn.sendTaskSuccess(token, output),
    };
    const watch = (threadId: string) => {
      const controller = new AbortController();
      controllers.set(threadId, controller);
      const check = async () => {
        const owner = await threads.owner(threadId);
        const run = owner && (await store.testRuns.get(owner.organization_id, owner.run_id));
        if (run && run.status === 'cancelled') controller.abort(new Error('the run was cancelled'));
      };
      void check().catch(() => {});
      const timer = setInterval(() => void check().catch(() => {}), 2_000);
      return () => {
        clearInterval(timer);
        if (controllers.get(threadId) === controller) controllers.delete(threadId);
      };
    };
    return { tasks: createGraphTasks(deps), deps, envs, watch };
  })();
  built.catch(() => (built = undefined));
  return built;
}

function handler(resource: Exclude<TaskResource, 'request_approval'>) {
  return async (event: unknown) => {
    const b = await build();
    const threadId = String((event as { thread_id?: unknown })?.thread_id ?? '');
    const unwatch = b.watch(threadId);
    try {
      return await (b.tasks[resource] as (input: unknown) => Promise<unknown>)(event);
    } finally {
      unwatch();
      await b.envs.release(threadId); // one test per invocation: no browser outlives it
    }
  };
}

export const analyzeCode = handler('analyze_code');
export const planTests = handler('plan_tests');
export const executeTest = handler('execute_test');
export const selfHeal = handler('self_heal');
export const approvalExpired = handler('approval_expired');
export const report = handler('report');

/**
 * The .waitForTaskToken Task: stores the approval with its token and returns; Step
 * Functions then waits for SendTaskSuccess (the approval endpoints). When the decision is
 * already known (a resumed execution), it sends it at once.
 */
export async function requestApproval(event: Record<string, unknown>) {
  const b = await build();
  const result = await b.tasks.request_approval(event);
  if (result.status === 'decided') await b.deps.sendTaskSuccess(String(event.task_token), result.output);
  return { status: result.status };
}

/** Scheduled (every minute): pending approvals past their time expire, which counts as a reject. */
export async function expireApprovals() {
  const b = await build();
  return { expired: await b.tasks.approvals.expireDue() };
}
