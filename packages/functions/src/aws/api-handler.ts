import { Logger } from '@aws-lambda-powertools/logger';
import { Hono } from 'hono';
import { streamHandle } from 'hono/aws-lambda';
import { createApp, type SvcApp } from '../api/app.ts';
import { AwsConfigError, loadAwsConfig } from './config.ts';
import { buildAwsDeps } from './deps.ts';

/**
 * Lambda entry point of the HTTP API (function URL, response streaming). It serves the
 * same Hono app as the local runtime; only the deps differ.
 *
 * The app is built on the first request and kept for the container's life. A failed
 * build is not cached, so a later request tries again, and it is answered with the
 * platform's error body rather than a crashed init.
 */

const logger = new Logger({ serviceName: 'svc-api' });

let appPromise: Promise<SvcApp> | undefined;

function getApp(): Promise<SvcApp> {
  if (!appPromise) {
    appPromise = Promise.resolve().then(async () => createApp(await buildAwsDeps(loadAwsConfig(process.env))));
    appPromise.catch(() => {
      appPromise = undefined;
    });
  }
  return appPromise;
}

// `streamHandle` must wrap the exported handler at load time (the runtime detects
// streaming from it), so a thin outer app defers to the real one once it is built.
const entry = new Hono();

entry.all('*', async (c) => {
  let app: SvcApp;
  try {
    app = await getApp();
  } catch (error) {
    if (error instanceof AwsConfigError) {
      logger.error('API configuration is invalid', { issues: error.issues });
      return c.json({ error: { code: 'INTERNAL', message: error.message } }, 500);
    }
    logger.error('API failed to start', { error: error as Error });
    return c.json({ error: { code: 'INTERNAL', message: 'the API failed to start' } }, 500);
  }
  return app.fetch(c.req.raw, c.env);
});

export const handler = streamHandle(entry);
