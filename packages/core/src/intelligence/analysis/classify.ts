import type { Classification } from './types.ts';
import type { SecretFinding } from './secrets.ts';
import type { PersonalFinding } from './personal-data.ts';

/**
 * Four-level classification (spec rule 7). The first rule that applies wins:
 * - restricted: the file held a secret (now redacted), a national id or a card number;
 * - confidential: other personal data (emails, phone numbers), or deployment and
 *   infrastructure configuration (Terraform, Kubernetes, Docker Compose, CI, IAM policies);
 * - public: documentation and assets meant to be published (README, LICENSE, docs/,
 *   public/, static/, *.md);
 * - internal: everything else (ordinary source code).
 */
export function classifyFile(path: string, secrets: SecretFinding[], personal: PersonalFinding[]): Classification {
  if (secrets.length > 0 || personal.some((p) => p.kind === 'us_ssn' || p.kind === 'card_number')) return 'restricted';
  if (personal.length > 0) return 'confidential';
  const lower = path.toLowerCase();
  const name = lower.split('/').at(-1) ?? lower;
  if (
    /\.(tf|hcl)$/.test(name) ||
    /^(docker-compose|compose)(\..*)?\.ya?ml$/.test(name) ||
    /(^|\/)(k8s|kubernetes|helm|charts|terraform|infra|deploy|\.github\/workflows)\//.test(lower) ||
    /(iam|policy)[^/]*\.json$/.test(name)
  ) {
    return 'confidential';
  }
  if (/^(readme|license|licence|changelog|contributing|code_of_conduct)(\..*)?$/.test(name) || /\.(md|mdx|rst|txt)$/.test(name) || /(^|\/)(docs?|public|static)\//.test(lower)) {
    return 'public';
  }
  return 'internal';
}

const order: Classification[] = ['public', 'internal', 'confidential', 'restricted'];

export const highestClassification = (levels: Classification[]): Classification =>
  levels.reduce<Classification>((a, b) => (order.indexOf(b) > order.indexOf(a) ? b : a), 'public');
