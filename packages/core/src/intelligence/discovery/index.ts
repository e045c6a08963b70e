export * from './urls.ts';
export * from './safety.ts';
export * from './types.ts';
export * from './classify.ts';
export * from './elements.ts';
export * from './scoring.ts';
export * from './flows.ts';
export * from './quality.ts';
