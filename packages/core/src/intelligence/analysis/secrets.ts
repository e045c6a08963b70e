/**
 * Secret redaction (spec rule 7): every file is redacted before anything is extracted
 * from it, so no surface, element, label or summary can carry a secret. Findings keep the
 * kind and line only; the value is gone.
 */

export interface SecretFinding {
  kind: string;
  line: number;
}

export interface Redacted {
  text: string;
  findings: SecretFinding[];
}

interface Rule {
  kind: string;
  re: RegExp;
  /** Which capture group holds the secret; 0 = the whole match. */
  group: number;
  /** Extra check on the captured value (and the key, when the rule captures one in group 1), to keep ordinary code untouched. */
  accept?: (value: string, key: string) => boolean;
  /** In configuration files every unquoted value is data; the rule's code heuristics are skipped. */
  codeOnly?: boolean;
}

/** Key names that announce a secret in `name = value` / `name: value` assignments. */
const secretKey = String.raw`[A-Za-z0-9_.-]{0,40}(?:api[_-]?key|apikey|secret|passw(?:or)?d|passwd|pwd|token|access[_-]?key|auth[_-]?key|private[_-]?key|client[_-]?secret|credentials?)[A-Za-z0-9_.-]{0,40}`;

const rules: Rule[] = [
  { kind: 'private_key', re: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/g, group: 0 },
  { kind: 'aws_access_key', re: /\b((?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|ABIA|ACCA)[0-9A-Z]{16})\b/g, group: 1 },
  { kind: 'aws_secret_key', re: /\baws_?secret_?access_?key\b["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})\b/gi, group: 1 },
  { kind: 'jwt', re: /\b(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})/g, group: 1 },
  { kind: 'github_token', re: /\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g, group: 1 },
  { kind: 'slack_token', re: /\b(xox[abposr]-[A-Za-z0-9-]{10,})\b/g, group: 1 },
  { kind: 'slack_webhook', re: /(https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]+)/g, group: 1 },
  { kind: 'stripe_key', re: /\b((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,})\b/g, group: 1 },
  { kind: 'google_api_key', re: /\b(AIza[0-9A-Za-z_-]{35})\b/g, group: 1 },
  { kind: 'npm_token', re: /\b(npm_[A-Za-z0-9]{36})\b/g, group: 1 },
  // scheme://user:password@host — only the password goes.
  { kind: 'connection_string_password', re: /\b[a-z][a-z0-9+.-]{0,30}:\/\/[^\s:@/'"`]{1,256}:([^\s@/'"`]{1,256})@[^\s'"`]{1,512}/gi, group: 1, accept: (v) => !isPlaceholder(v) && !/\$\{|\{\{|<%|%\(/.test(v) },
  // password=..., "api_key": "...", API_TOKEN: ... (quoted values)
  {
    kind: 'assigned_secret',
    re: new RegExp(String.raw`\b(${secretKey})["']?\s*(?::|=|:=|=>)\s*(["'\`])([^"'\`\n]{4,512})\2`, 'gi'),
    group: 3,
    accept: (v, key) => !isPlaceholder(v) && !describesSecret(key) && !/^[A-Z][A-Z0-9_]*$/.test(v) && !/^[a-z]{1,7}$/.test(v),
  },
  // Unquoted values (.env-style, YAML, properties): only values that look like data, not code.
  {
    kind: 'assigned_secret',
    re: new RegExp(String.raw`(?:^|[\s,{;(])(${secretKey})\s*(?::|=)[ \t]*([^\s"'\`,;(){}]{8,512})`, 'gim'),
    group: 2,
    accept: (v, key) => !isPlaceholder(v) && !describesSecret(key) && !looksLikeCode(v),
    codeOnly: true,
  },
];

/**
 * Keys that name something *about* a secret rather than holding one: `TOKEN_FILE`,
 * `passwordField`, `ExpiredTokenException`, `inputTokens`, `tokenType`...
 */
function describesSecret(key: string): boolean {
  return /(file|path|dir|name|field|type|header|label|placeholder|exception|error|url|uri|endpoint|env|var|count|limit|length|size|prefix|suffix|format|pattern|regex|message|hint|policy|mode|kind|ttl|expiry|expires(_?at|_?in)?|tokens|ids?)s?$/i.test(key.replace(/["']/g, ''));
}

/** An unquoted value that is an expression: `req.body.password`, `out.usage?.inputTokens`, `config.keys[tier]`, `Record<string`. */
function looksLikeCode(v: string): boolean {
  return (
    /^[A-Za-z_$][\w$]*((\?\.|!?\.)[\w$]+|\[[^\]]*\]?)*(\[\])?$/.test(v) ||
    /[<>]/.test(v) ||
    /^\/.*\/[dgimsuvy]*$/.test(v) || // a regular expression literal
    /^(true|false|null|undefined|string|number|boolean)$/i.test(v)
  );
}

function isPlaceholder(v: string): boolean {
  const s = v.trim();
  return (
    /^\$\{?[A-Za-z_]/.test(s) || // ${ENV}, $ENV
    /^\{\{.*\}\}$/.test(s) || // {{ template }}
    /^<[^>]+>$/.test(s) || // <your-key>
    /^(x+|\*+|\.+|changeme|example|placeholder|redacted|password|passwd|pass|pwd|pw|token|secret|user|your[-_ ].*|\[REDACTED[^\]]*\])$/i.test(s) ||
    /process\.env|import\.meta\.env|os\.environ|getenv/i.test(s)
  );
}

const lineStarts = (text: string): number[] => {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
};

/** 1-based line of an offset, by binary search over line starts. */
export function lineAt(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** Configuration files (.yaml, .properties, .ini, .toml, .conf, Dockerfile...): unquoted values are data there. */
export const isConfigFile = (path: string) => /\.(ya?ml|ini|properties|toml|conf|cfg|cnf|env|sh|bash|zsh|txt|tfvars)$|(^|\/)Dockerfile$/i.test(path);

/**
 * Replaces every secret in `text` with `[REDACTED:<kind>]`. `config: true` for
 * configuration files, where `password=hunter2hunter` is a value, not an expression.
 */
export function redactSecrets(text: string, options: { config?: boolean } = {}): Redacted {
  const findings: SecretFinding[] = [];
  let out = text;
  for (const rule of rules) {
    const starts = lineStarts(out);
    const pieces: string[] = [];
    let last = 0;
    rule.re.lastIndex = 0;
    for (let m = rule.re.exec(out); m; m = rule.re.exec(out)) {
      if (m[0].length === 0) {
        rule.re.lastIndex++;
        continue;
      }
      const value = m[rule.group];
      if (value === undefined || value.startsWith('[REDACTED') || (rule.accept && !(options.config && rule.codeOnly ? !isPlaceholder(value) && !describesSecret(m[1] ?? '') : rule.accept(value, m[1] ?? '')))) continue;
      const start = m.index + (rule.group === 0 ? 0 : m[0].indexOf(value));
      // Newlines survive so line numbers stay true for the extractors that run next.
      pieces.push(out.slice(last, start), `[REDACTED:${rule.kind}]` + '\n'.repeat(value.split('\n').length - 1));
      last = start + value.length;
      findings.push({ kind: rule.kind, line: lineAt(starts, start) });
    }
    if (pieces.length) out = pieces.join('') + out.slice(last);
  }
  findings.sort((a, b) => a.line - b.line);
  return { text: out, findings };
}
