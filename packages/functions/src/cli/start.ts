import { startLocalRuntime } from '../local/runtime.ts';
import { parseLocalConfig } from '../local/config.ts';
import { SecretKeyFileError } from '../secrets/key-file.ts';

/** `svc start`: runs until SIGINT/SIGTERM, then closes the server and the store cleanly. */
export async function startCommand(flags: { port?: string; dataDir?: string; host?: string }): Promise<number> {
  let config;
  try {
    config = parseLocalConfig(process.env, { port: flags.port, dataDir: flags.dataDir, host: flags.host });
  } catch (err) {
    process.stderr.write(`svc: ${(err as Error).message}\n`);
    return 2;
  }
  let runtime;
  try {
    runtime = await startLocalRuntime(config);
  } catch (err) {
    // A key file that is missing, unreadable or not the data folder's: say which and stop.
    if (!(err instanceof SecretKeyFileError)) throw err;
    process.stderr.write(`svc: ${err.message}\n`);
    return 1;
  }
  const { admin } = runtime;
  const lines = [
    '',
    `  svc is running at ${runtime.url}`,
    '',
    `  Dashboard     ${runtime.url}/`,
    `  API           ${runtime.url}/api/v1/...   (OpenAPI: ${runtime.url}/api/openapi.json)`,
    `  MCP           ${runtime.url}/mcp   (agent tool gateway; send the API key as Bearer)`,
    `  Health        ${runtime.url}/health`,
    `  Data folder   ${config.dataDir}`,
    '',
    runtime.firstStart ? '  First start: created an organization and an admin.' : '  Admin credentials (from the first start):',
    `  Admin login   ${admin.email} / ${admin.password}`,
    `  Admin API key ${admin.apiKey}`,
    `  Organization  ${admin.organizationName} (${admin.organizationId})`,
    `  (kept in ${config.dataDir}/first-admin.json)`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await runtime.close();
  return 0;
}
