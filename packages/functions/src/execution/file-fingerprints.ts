import { mkdir, readFile, writeFile, rename } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Fingerprint } from '@svc/core/contracts/fingerprint';
import type { FingerprintStore, StepFingerprints } from '@svc/core/execution/fingerprint-store';

/**
 * Fingerprints for `svc run`: one JSON file per test under <stateDir>/fingerprints, so a
 * later run of the same tests (against a changed app) can heal against them.
 */
export class FileFingerprintStore implements FingerprintStore {
  private readonly dir: string;
  constructor(stateDir: string) {
    this.dir = join(stateDir, 'fingerprints');
  }

  private file(testId: string): string {
    return join(this.dir, `${createHash('sha256').update(testId).digest('hex').slice(0, 32)}.json`);
  }

  /** By step index, or `<index>.<field>` for an extract step's field (fieldKey). */
  async get(testId: string): Promise<StepFingerprints> {
    try {
      const data = JSON.parse(await readFile(this.file(testId), 'utf8')) as { test_id: string; steps: Record<string, Fingerprint> };
      return data.test_id === testId ? { ...data.steps } : {};
    } catch {
      return {}; // none yet, or unreadable: healing then has nothing to compare with
    }
  }

  async save(testId: string, fingerprints: StepFingerprints): Promise<void> {
    if (Object.keys(fingerprints).length === 0) return;
    const merged = { ...(await this.get(testId)), ...fingerprints };
    await mkdir(this.dir, { recursive: true });
    const path = this.file(testId);
    const tmp = `${path}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify({ test_id: testId, steps: merged }) + '\n');
    await rename(tmp, path);
  }
}
