import { limits } from '@svc/core/contracts/limits';

/** Per-run screenshot cap (spec limit MAX_SCREENSHOTS_PER_RUN), shared by every session of a driver. */
export class ScreenshotBudget {
  private used = 0;
  constructor(readonly max: number = limits.MAX_SCREENSHOTS_PER_RUN) {}

  /** Takes one screenshot from the budget; false when the cap is reached. */
  take(): boolean {
    if (this.used >= this.max) return false;
    this.used++;
    return true;
  }

  get count(): number {
    return this.used;
  }
}
