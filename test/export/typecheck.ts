import { dirname, join } from 'node:path';
import ts from 'typescript';

/**
 * Compiles generated TypeScript without writing it anywhere: the files live in memory at
 * paths inside the repository, so `@playwright/test` resolves from the root node_modules
 * and the generated code is checked against Playwright's real type definitions.
 */

const root = join(import.meta.dirname, '..', '..');

const options: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  esModuleInterop: true,
  types: ['node'],
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
  typeRoots: [join(root, 'node_modules', '@types')],
};

/** Syntax only (what `transpileModule` reports): fast, and enough to prove the code parses. */
export function syntaxErrors(code: string, fileName = 'generated.spec.ts'): string[] {
  const out = ts.transpileModule(code, { fileName, reportDiagnostics: true, compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } });
  return (out.diagnostics ?? []).map(format);
}

/** Full type check of several files at once; returns the diagnostics as text. */
export function typeErrors(files: Record<string, string>): string[] {
  const virtual = new Map(Object.entries(files).map(([name, text]) => [join(root, 'test', 'export', '__generated__', name), text]));
  const host = ts.createCompilerHost(options, true);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const text = virtual.get(fileName);
    return text !== undefined ? ts.createSourceFile(fileName, text, languageVersion, true) : getSourceFile(fileName, languageVersion, onError, shouldCreate);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => virtual.has(fileName) || fileExists(fileName);
  const readFile = host.readFile.bind(host);
  host.readFile = (fileName) => virtual.get(fileName) ?? readFile(fileName);
  const directoryExists = host.directoryExists?.bind(host);
  host.directoryExists = (dir) => [...virtual.keys()].some((f) => dirname(f).startsWith(dir)) || (directoryExists?.(dir) ?? true);
  const program = ts.createProgram([...virtual.keys()], options, host);
  return ts.getPreEmitDiagnostics(program).map(format);
}

function format(d: ts.Diagnostic): string {
  const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
  if (!d.file || d.start === undefined) return message;
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
  return `${d.file.fileName.split('/').pop()}:${line + 1}:${character + 1} ${message}\n    ${d.file.text.split('\n')[line]}`;
}
