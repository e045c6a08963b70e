import { HttpUrl } from '../contracts/project.ts';

/**
 * What a person typed after the slash command, parsed (docs/chatops.md, Commands). Parsing
 * never throws: a command that does not parse is `invalid` with the reason, answered to
 * the person with the usage, never a Slack error.
 */
export type ChatCommand =
  | { kind: 'run'; project?: string; tags: string[]; url?: string }
  | { kind: 'status'; runId?: string }
  | { kind: 'score'; project?: string }
  | { kind: 'help'; unknown?: string }
  | { kind: 'invalid'; command: 'run' | 'status' | 'score'; message: string };

export type ChatCommandKind = ChatCommand['kind'];

const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TAG = /^#[^\s#]{1,100}$/;

/** The usage text; `command` is the slash command as the workspace named it (/svc by default). */
export function usage(command = '/svc'): string {
  return [
    `\`${command} run [project] [#tag …] [--url <app url>]\` start a run of the project's tests (those with one of the tags); its outcome is posted here when it ends`,
    `\`${command} status [run id]\` a run's status and totals (the default project's latest run without an id)`,
    `\`${command} score [project]\` the project's quality score`,
    `\`${command} help\` this text`,
    'A project is its name or id; without one, the default project of this workspace.',
  ].join('\n');
}

/**
 * A word as the person typed it. Slack formats the text it sends: a `#word` naming a
 * channel becomes `<#C123|word>` (read as the tag), a URL becomes `<url>` or `<url|label>`
 * (read as the URL), and &, < and > typed by the person arrive as &amp;, &lt; and &gt;.
 */
function plain(word: string): string {
  const unformatted = word.replace(/^<#[A-Z0-9]+\|([^>]+)>$/, '#$1').replace(/^<(https?:\/\/[^|>]+)(\|[^>]*)?>$/, '$1');
  return unformatted.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

const words = (text: string): string[] => text.trim().split(/\s+/).filter(Boolean).map(plain);

function parseRun(args: string[]): ChatCommand {
  const project: string[] = [];
  const tags: string[] = [];
  let url: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--url') {
      const value = args[++i];
      if (!value) return { kind: 'invalid', command: 'run', message: '--url needs the application URL after it' };
      const parsed = HttpUrl.safeParse(value);
      if (!parsed.success) return { kind: 'invalid', command: 'run', message: `--url: ${parsed.error.issues[0]?.message ?? 'not an http(s) URL'}` };
      url = parsed.data;
    } else if (arg.startsWith('--')) {
      return { kind: 'invalid', command: 'run', message: `unknown option ${arg} (run takes --url)` };
    } else if (arg.startsWith('#')) {
      if (!TAG.test(arg)) return { kind: 'invalid', command: 'run', message: `${arg} is not a tag` };
      tags.push(arg.slice(1));
    } else {
      project.push(arg);
    }
  }
  return { kind: 'run', ...(project.length ? { project: project.join(' ') } : {}), tags: [...new Set(tags)], ...(url ? { url } : {}) };
}

/** Parses the text of a slash command (what follows `/svc`). */
export function parseCommand(text: string): ChatCommand {
  const [head, ...args] = words(text);
  const name = head?.toLowerCase();
  switch (name) {
    case 'run':
      return parseRun(args);
    case 'status':
      if (args.length > 1) return { kind: 'invalid', command: 'status', message: 'status takes at most one run id' };
      if (args.length && !RUN_ID.test(args[0])) return { kind: 'invalid', command: 'status', message: `${args[0]} is not a run id` };
      return { kind: 'status', ...(args.length ? { runId: args[0].toLowerCase() } : {}) };
    case 'score':
      return { kind: 'score', ...(args.length ? { project: args.join(' ') } : {}) };
    case undefined:
    case 'help':
      return { kind: 'help' };
    default:
      return { kind: 'help', unknown: head };
  }
}
