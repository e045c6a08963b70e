/** `svc run --env-file`: how a line becomes a variable (parseEnvFile). */
import { describe, expect, it } from 'vitest';
import { parseEnvFile } from '../../packages/functions/src/cli/run.ts';

describe('--env-file lines', () => {
  it('reads KEY=value, export lines, quotes and comments as dotenv files are written', () => {
    const text = [
      '# a comment line',
      'PG_URL=postgres://postgres@127.0.0.1:5432/test',
      'ITEM_ID=1 # the seeded item',
      'COLOR=#fff',
      'export TOKEN="a b # not a comment" # but this is',
      "SINGLE='x=y'",
      '  SPACED  =  value with spaces  ',
      'EMPTY=',
      'not a line',
    ].join('\n');
    expect(parseEnvFile(text)).toEqual({
      PG_URL: 'postgres://postgres@127.0.0.1:5432/test',
      ITEM_ID: '1',
      COLOR: '#fff',
      TOKEN: 'a b # not a comment',
      SINGLE: 'x=y',
      SPACED: 'value with spaces',
      EMPTY: '',
    });
  });
});
