import { parseArgs } from 'node:util';
import { healFromGit, GitHealError } from './index.ts';

export const HEAL_GIT_HELP = `Usage: svc heal git --repo <path> --selector <selector> [--candidate <selector>] [--max-commits N]

Git-aware healing, read-only: finds the most recent commit that removed the selector's
identifying token (id, test id, class, attribute or text), tells a rename from a
removal, and prints one JSON object:
  { "original_selector", "healed_selector", "kind": "rename"|"removal"|"unknown",
    "confidence", "commit", "author", "author_email", "date", "message", "file",
    "token", "evidence", "notes" }

Options:
  --repo <path>          A local clone
  --selector <sel>       The selector that no longer matches (#id, [data-testid=x], .cls, text=...)
  --candidate <sel>      A heal proposed elsewhere, cross-checked against history
  --max-commits <n>      Commits touching the token examined at most (default 50)

Exit code: 0 with a result (kind may be "unknown"), 2 for bad usage or a path that is not a
git repository.
`;

export async function healGitCommand(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args, options: { repo: { type: 'string' }, selector: { type: 'string' }, candidate: { type: 'string' }, 'max-commits': { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true }));
  } catch (err) {
    return usage((err as Error).message);
  }
  if (values.help) {
    process.stdout.write(HEAL_GIT_HELP);
    return 0;
  }
  if (!values.repo) return usage('--repo is required');
  if (!values.selector) return usage('--selector is required');
  const maxCommits = values['max-commits'] === undefined ? undefined : Number(values['max-commits']);
  if (maxCommits !== undefined && (!Number.isInteger(maxCommits) || maxCommits < 1 || maxCommits > 1000)) return usage('--max-commits must be a whole number from 1 to 1000');
  try {
    const result = await healFromGit({ repo: values.repo, selector: values.selector, candidate: values.candidate, maxCommits });
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    return 0;
  } catch (err) {
    if (err instanceof GitHealError) {
      process.stderr.write(`svc heal git: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}

function usage(message: string): number {
  process.stderr.write(`svc heal git: ${message}\n\n${HEAL_GIT_HELP}`);
  return 2;
}
