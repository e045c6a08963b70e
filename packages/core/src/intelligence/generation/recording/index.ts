import { findTooDeep, MAX_JSON_DEPTH } from '../../../contracts/json-body.ts';
import { convertChromeRecording, isChromeRecording } from './chrome-recorder.ts';
import { convertPlaywrightScript, looksLikePlaywright } from './playwright-codegen.ts';
import { RecordingError, type ConvertedRecording, type RecordingFormat } from './types.ts';

export { RecordingError, type ConvertedRecording, type RecordingFormat, type SkippedPart } from './types.ts';

/** Most recordings are far smaller; the spec's recording upload limit. */
export const MAX_RECORDING_BYTES = 50 * 1024 * 1024;

/**
 * Converts a recording: Chrome DevTools Recorder JSON (an object, or its text) or a
 * Playwright codegen script (text). `format` forces one reading; without it the
 * content decides. Anything else is a RecordingError (the API answers 400).
 */
export async function convertRecording(recording: unknown, opts: { format?: RecordingFormat; name?: string } = {}): Promise<ConvertedRecording> {
  let value = recording;
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (trimmed === '') throw new RecordingError('the recording is empty');
    if (trimmed.startsWith('{') && opts.format !== 'playwright') {
      // A Chrome recording nests a few levels; a deep one is refused before it is parsed.
      if (findTooDeep(trimmed)) throw new RecordingError(`the recording nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`);
      try {
        value = JSON.parse(trimmed);
      } catch (err) {
        if (opts.format === 'chrome-recorder') throw new RecordingError(`the recording is not valid JSON: ${(err as Error).message}`);
      }
    }
  }
  if (opts.format === 'chrome-recorder' || (opts.format === undefined && isChromeRecording(value))) return convertChromeRecording(value, opts);
  if (typeof value === 'string' && (opts.format === 'playwright' || looksLikePlaywright(value))) return convertPlaywrightScript(value, opts);
  throw new RecordingError('unknown recording format: expected Chrome DevTools Recorder JSON ({ "title", "steps": [{ "type": "navigate" | "click" | … }] }) or a Playwright codegen script (page.goto(…), page.getByRole(…).click() …)', opts.format ? 'format' : 'recording');
}
