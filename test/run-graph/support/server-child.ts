/**
 * Runs the local runtime with the run graph in a child process, for the crash test:
 *   server-child.ts <dataDir>   prints {"url", "apiKey", "orgId"} as one line once listening
 * and runs until killed. A restart on the same folder resumes unfinished runs.
 */
import { writeSync } from 'node:fs';
import { startRunGraphServer } from './api-server.ts';

const [dataDir] = process.argv.slice(2);
const server = await startRunGraphServer({ dataDir });
writeSync(1, `${JSON.stringify({ url: server.url, apiKey: server.admin.apiKey, orgId: server.admin.organizationId })}\n`);
process.on('SIGTERM', () => void server.stop().then(() => process.exit(0)));
