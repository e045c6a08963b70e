import { AppError } from '@svc/core/errors';
import type { PlainLanguageResult } from '@svc/core/intelligence/generation/plain-language';

/** Lines the grammar cannot read are a 400 naming each line and the closest sentence it knows (unless allow_partial). */
export function rejectUnparsed(parsed: Pick<PlainLanguageResult, 'not_understood' | 'steps'>, field: string, allowPartial: boolean, modelNotes?: Record<string, unknown>) {
  const lines = parsed.not_understood;
  if (lines.length && (!allowPartial || parsed.steps.length === 0)) {
    const issues = lines.map((l) => ({ path: field, message: `line ${l.line}: not understood: "${l.text}" (${l.reason}); closest supported sentence: ${l.closest}` }));
    throw new AppError('VALIDATION_FAILED', `Invalid request: ${issues.map((i) => i.message).join('; ')}`, { issues, not_understood: lines, ...modelNotes });
  }
  if (parsed.steps.length === 0) throw new AppError('VALIDATION_FAILED', `Invalid request: ${field}: no sentences found`, { issues: [{ path: field, message: 'no sentences found' }] });
}
