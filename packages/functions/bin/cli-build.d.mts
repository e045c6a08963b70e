// Types of cli-build.mjs (plain JavaScript: bin/svc.js loads it before any TypeScript loader).
export declare const REPO_ROOT: string;
export declare const DIST_DIR: string;
export declare const ENTRY: string;
export declare function manifestOf(distDir: string): string;
export declare function mainOf(distDir: string): string;
/** size + mtimeMs of each file, relative to the repo root; null for a missing file. */
export declare function inputsOf(paths: Iterable<string>): Record<string, [number, number] | null>;
/** True when the build in distDir (default packages/functions/dist) matches every input on disk. */
export declare function distIsFresh(distDir?: string): boolean;
