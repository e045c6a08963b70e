/**
 * npm run apps:install            installs the real apps into .real-apps/ (idempotent)
 * tsx scripts/real-apps.ts serve todomvc|json-server|petstore
 *                                 installs if needed, then serves one until Ctrl-C
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installRealApps, realAppNames, startRealApp, type RealAppName } from '../test/support/real-apps.ts';

export * from '../test/support/real-apps.ts';

async function main(argv: string[]): Promise<void> {
  const [command = 'install', name] = argv;
  installRealApps((line) => console.log(line));
  if (command === 'install') return;
  if (command !== 'serve' || !realAppNames.includes(name as RealAppName)) {
    throw new Error(`usage: tsx scripts/real-apps.ts [install | serve <${realAppNames.join('|')}>]`);
  }
  const app = await startRealApp(name as RealAppName);
  console.log(`${name} is serving at ${app.url}`);
  process.on('SIGINT', () => void app.close().then(() => process.exit(0)));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((err: Error) => {
    console.error(err.message);
    process.exit(1);
  });
}
