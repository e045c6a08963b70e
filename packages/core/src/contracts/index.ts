/** Contracts: the zod schemas every surface (REST, MCP, events, storage) shares. */
export * from './common.ts';
export * from './parse.ts';
export * from './error-body.ts';
export * from './organization.ts';
export * from './member.ts';
export * from './user-profile.ts';
export * from './project.ts';
export * from './test.ts';
export * from './api-key.ts';
export * from './audit-log.ts';
export * from './invitation.ts';
export * from './auth.ts';
export * from './events.ts';
