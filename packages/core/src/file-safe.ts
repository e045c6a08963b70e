/**
 * A string as one path segment: every run of characters other than letters, digits, dot,
 * dash and underscore becomes one underscore. Used for artifact folders, baseline files
 * and blob key segments, so the same name maps to the same place everywhere.
 */
export const fileSafe = (s: string): string => s.replace(/[^A-Za-z0-9._-]+/g, '_');
