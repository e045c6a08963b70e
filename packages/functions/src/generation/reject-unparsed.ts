import { AppError } from '@svc/core/errors';
import type { PlainLanguageResult } from '@svc/core/intelligence/generation/plain-language';

/**
 * Lines the grammar cannot read are a 400 naming each line and the closest sentence it
 * knows (unless allow_partial); `hint` says what else could read them (a model).
 */
export function rejectUnparsed(parsed: Pick<PlainLanguageResult, 'not_understood' | 'steps'>, field: string, allowPartial: boolean, modelNotes?: Record<string, unknown>, hint?: string) {
  const lines = parsed.not_understood;
  if (lines.length && (!allowPartial || parsed.steps.length === 0)) {
    const issues = lines.map((l) => ({ path: field, message: `line ${l.line}: not understood: "${l.text}" (${l.reason}); closest supported sentence: ${l.closest}` }));
    // The headline names the field as every VALIDATION_FAILED does (docs/errors.md): "text: line 2: …", not "line 2: …",
    // which left an assistant reading the MCP tool error to guess which argument held the line (found by QA).
    const headline = `${field}: ${lines.map((l) => `line ${l.line}: not understood: "${l.text}" (${l.reason}); closest supported sentence: ${l.closest}`).join('; ')}`;
    throw new AppError('VALIDATION_FAILED', `Invalid request: ${headline}${hint ? `. ${hint}` : ''}`, { issues, not_understood: lines, ...modelNotes });
  }
  if (parsed.steps.length === 0) throw new AppError('VALIDATION_FAILED', `Invalid request: ${field}: no sentences found`, { issues: [{ path: field, message: 'no sentences found' }] });
}

/** Said when lines were not understood and no model could have rewritten them. */
export const NO_MODEL_HINT = 'No language model is configured (SVC_LLM_PROVIDERS) to rewrite free-form lines into these sentences';
