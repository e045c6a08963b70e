import { delimiter } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAnalyzeRoots, rootsOf } from './read-repository.ts';

const A = '0f8fad5b-d9cb-469f-a165-70867728950e';
const B = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

describe('SVC_ANALYZE_ROOTS', () => {
  it('splits on commas and the path delimiter, trimmed, empty entries dropped', () => {
    expect(parseAnalyzeRoots(` /srv/shared ,${A}=/srv/a${delimiter}${delimiter}/srv/other`)).toEqual(['/srv/shared', `${A}=/srv/a`, '/srv/other']);
    expect(parseAnalyzeRoots(undefined)).toEqual([]);
  });

  it("opens a plain folder to every organization and '<organization id>=<folder>' to that one only", () => {
    const roots = ['/srv/shared', `${A}=/srv/a`, `${B.toUpperCase()}=/srv/b`];
    expect(rootsOf(roots, A)).toEqual(['/srv/shared', '/srv/a']);
    expect(rootsOf(roots, B)).toEqual(['/srv/shared', '/srv/b']);
    expect(rootsOf(roots, crypto.randomUUID())).toEqual(['/srv/shared']);
  });

  it("keeps a folder whose name has '=' in it as a plain folder when what comes before is not an organization id", () => {
    expect(rootsOf(['/srv/team=a', 'acme=/srv/acme'], A)).toEqual(['/srv/team=a', 'acme=/srv/acme']);
  });
});
