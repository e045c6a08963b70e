export * from './diff.ts';
export * from './plan.ts';
