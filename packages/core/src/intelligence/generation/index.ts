export { parsePlainLanguage, toTestDefinition, testType, type PlainLanguageResult, type UnderstoodLine, type NotUnderstoodLine } from './plain-language.ts';
export { rewriteWithModel, repairWithModel, lineOfStep, applyRewrites, rewritePrompt, compactElements, pageUrlFor, storyComplexity, MODEL_CERTAINTY_FACTOR, type ModelAssisted, type ModelAssistReport, type Repaired, type PageContext } from './model-assist.ts';
export { parseSentence } from './grammar/parse-sentence.ts';
export { convertRecording, RecordingError, MAX_RECORDING_BYTES, type ConvertedRecording, type RecordingFormat, type SkippedPart } from './recording/index.ts';
export { reproduceEvent, consoleShowsError, FailureEvent, type EventReproduction } from './from-event.ts';
export { reviewTest, type Review, type Finding } from './review.ts';
export { generateFromSpec, generateFromFlow, FlowInput, type GeneratedFromSpec } from './suite.ts';
export { confidenceScore, checksNothing, type ExecutionOutcome } from './confidence.ts';
