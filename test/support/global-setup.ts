import { installRealApps } from './real-apps.ts';

/**
 * Runs once before the suite. The discovery and story tests drive real third-party apps
 * (todomvc, json-server, the swagger pet store) installed from the npm registry into
 * .real-apps/ — installing them here means a fresh `npm ci && npm test` exercises them
 * instead of skipping. Idempotent and quick when they are present.
 */
export default function setup(): void {
  try {
    installRealApps((line) => console.log(`[global-setup] ${line}`));
  } catch (err) {
    // Without the registry the real-app tests skip (their titles say how to install); the rest runs.
    console.warn(`[global-setup] real apps not installed: ${(err as Error).message}`);
  }
}
