import { describe, expect, it } from 'vitest';
import { parseCommand, usage } from './command.ts';

describe('parseCommand', () => {
  it('run: the default project, a project by name (spaces kept) or id, tags, and --url', () => {
    expect(parseCommand('run')).toEqual({ kind: 'run', tags: [] });
    expect(parseCommand('  RUN   web shop  ')).toEqual({ kind: 'run', project: 'web shop', tags: [] });
    expect(parseCommand('run shop #smoke #checkout #smoke --url https://staging.example.com')).toEqual({ kind: 'run', project: 'shop', tags: ['smoke', 'checkout'], url: 'https://staging.example.com' });
    expect(parseCommand('run 0193a1b2-0000-7000-8000-000000000001')).toEqual({ kind: 'run', project: '0193a1b2-0000-7000-8000-000000000001', tags: [] });
  });

  it('run: reads what Slack makes of a typed #channel and URL', () => {
    // Slack escapes a #word that names a channel, and wraps URLs in <…> (with |label when it shortens one).
    expect(parseCommand('run <#C024BE7LR|smoke> --url <https://staging.example.com/app|staging.example.com/app>')).toEqual({ kind: 'run', tags: ['smoke'], url: 'https://staging.example.com/app' });
    expect(parseCommand('run --url <http://127.0.0.1:3000>')).toEqual({ kind: 'run', tags: [], url: 'http://127.0.0.1:3000' });
    // What the person typed as &, < and > arrives escaped, inside a link too.
    expect(parseCommand('run R&amp;D --url <https://staging.example.com/?a=1&amp;b=2>')).toEqual({ kind: 'run', project: 'R&D', tags: [], url: 'https://staging.example.com/?a=1&b=2' });
  });

  it('run: says what is wrong with an option', () => {
    expect(parseCommand('run --url')).toEqual({ kind: 'invalid', command: 'run', message: '--url needs the application URL after it' });
    expect(parseCommand('run --url ftp://example.com')).toMatchObject({ kind: 'invalid', command: 'run', message: expect.stringMatching(/^--url: /) });
    expect(parseCommand('run --fast')).toEqual({ kind: 'invalid', command: 'run', message: 'unknown option --fast (run takes --url)' });
    expect(parseCommand('run #')).toEqual({ kind: 'invalid', command: 'run', message: '# is not a tag' });
  });

  it('status: the latest run, or one run id', () => {
    expect(parseCommand('status')).toEqual({ kind: 'status' });
    expect(parseCommand('status 0193A1B2-0000-7000-8000-00000000000F')).toEqual({ kind: 'status', runId: '0193a1b2-0000-7000-8000-00000000000f' });
    expect(parseCommand('status yesterday')).toEqual({ kind: 'invalid', command: 'status', message: 'yesterday is not a run id' });
    expect(parseCommand('status a b')).toEqual({ kind: 'invalid', command: 'status', message: 'status takes at most one run id' });
  });

  it('score: the default project or one named', () => {
    expect(parseCommand('score')).toEqual({ kind: 'score' });
    expect(parseCommand('score web shop')).toEqual({ kind: 'score', project: 'web shop' });
  });

  it('help, nothing, and anything unknown are the usage', () => {
    expect(parseCommand('help')).toEqual({ kind: 'help' });
    expect(parseCommand('')).toEqual({ kind: 'help' });
    expect(parseCommand('deploy prod')).toEqual({ kind: 'help', unknown: 'deploy' });
    expect(usage('/qa')).toContain('`/qa run [project] [#tag …] [--url <app url>]`');
  });
});
