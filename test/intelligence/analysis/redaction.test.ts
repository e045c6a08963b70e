import { describe, it, expect } from 'vitest';
import { redactSecrets, findPersonalData, luhnValid, blockedReason, classifyFile } from '@svc/core/intelligence/analysis/index';

// Tokens are assembled at run time so no scanner mistakes this file for a leak.
const fake = {
  github: 'ghp_' + 'A1b2C3d4E5'.repeat(4).slice(0, 36),
  githubPat: 'github_pat_' + '11ABCDEFG0'.repeat(3),
  slack: ['xoxb', '123456789012', '1234567890123', 'abcdefghijABCDEFGHIJ'].join('-'),
  stripe: ['sk', 'live', '4eC39HqLyjWDarjtT1zdp7dc'].join('_'),
  jwt: ['eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9', 'eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ', 'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'].join('.'),
  pem: ['-----BEGIN', 'PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nabcdef\n-----END PRIVATE KEY-----'].join(' '),
};

describe('secret redaction', () => {
  it('redacts each kind and reports kind and line, never the value', () => {
    const text = [
      `const gh = '${fake.github}';`,
      `const pat = "${fake.githubPat}";`,
      `SLACK_TOKEN=${fake.slack}`,
      `stripe.key = '${fake.stripe}';`,
      `Authorization: Bearer ${fake.jwt}`,
      fake.pem,
      'const after = 1;',
      'aws_access_key_id = AKIAIOSFODNN7EXAMPLE',
      'mongodb+srv://admin:hunter2hunter2@cluster0.example.net/db',
      'password=S3cr3t-P4ss!',
      '"api_key": "abc123def456"',
      'webhook: https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
    ].join('\n');
    const { text: out, findings } = redactSecrets(text);
    for (const v of [fake.github, fake.githubPat, fake.slack, fake.stripe, fake.jwt, 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', 'AKIAIOSFODNN7EXAMPLE', 'hunter2hunter2', 'S3cr3t-P4ss!', 'abc123def456', 'XXXXXXXXXXXXXXXXXXXXXXXX']) {
      expect(out).not.toContain(v);
    }
    expect(findings.map((f) => `${f.line} ${f.kind}`)).toEqual([
      '1 github_token', '2 github_token', '3 slack_token', '4 stripe_key', '5 jwt', '6 private_key', '11 aws_access_key', '12 connection_string_password', '13 assigned_secret', '14 assigned_secret', '15 slack_webhook',
    ]);
    // line numbers survive a multi-line redaction
    expect(out.split('\n')).toHaveLength(text.split('\n').length);
    expect(out.split('\n')[9]).toBe('const after = 1;');
    expect(out).toContain('mongodb+srv://admin:[REDACTED:connection_string_password]@cluster0.example.net/db');
  });

  it('in configuration files an unquoted word is a value, in code an expression', () => {
    const text = 'db:\n  password: hunter2hunter\n  password_file: /run/secrets/db\n';
    expect(redactSecrets(text, { config: true }).text).toBe('db:\n  password: [REDACTED:assigned_secret]\n  password_file: /run/secrets/db\n');
    expect(redactSecrets(text).findings).toEqual([]);
  });

  it('leaves code that only talks about secrets alone', () => {
    const code = [
      "const schema = z.object({ password: z.string().min(8), token: z.string() });",
      'const password = req.body.password;',
      '<input type="password" name="password" data-testid="password-input" />',
      'const apiKey = process.env.API_KEY;',
      'password: ${DB_PASSWORD}',
      'token: string;',
      "const url = `postgres://${user}:${pass}@${host}/db`;",
      "headers: { Authorization: `Bearer ${token}` }",
      'inputTokens: out.usage?.inputTokens ?? 0,',
      "ExpiredTokenException: 'PROVIDER_AUTH',",
      'costPer1kTokens: config.costPer1k[tier] }',
      "const CREDENTIALS_FILE = 'first-admin.json';",
      'secrets: Record<string, string>;',
      "context: { Task: { Token: 'local' } }",
      "passwordField: 'user-password-input',",
    ].join('\n');
    const { text, findings } = redactSecrets(code);
    expect(findings).toEqual([]);
    expect(text).toBe(code);
  });
});

describe('personal data', () => {
  it('flags emails, SSNs and Luhn-valid card numbers by line', () => {
    const text = ['contact: ops@example.org', 'ssn 078-05-1120', 'visa 4242-4242-4242-4242', 'bad 4242-4242-4242-4241', 'order id 1234567890123', 'ssn-like 000-12-3456', 'amex 378282246310005'].join('\n');
    expect(findPersonalData(text)).toEqual([
      { kind: 'email', line: 1 },
      { kind: 'us_ssn', line: 2 },
      { kind: 'card_number', line: 3 },
      { kind: 'card_number', line: 7 },
    ]);
  });

  it('implements the Luhn check', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(luhnValid('79927398713')).toBe(true);
  });
});

describe('blocked files and classification', () => {
  it('blocks environment and credential files by name and folder', () => {
    for (const p of ['.env', '.env.local', 'app/.env.production', 'certs/tls.pem', 'tls.key', 'home/.ssh/config', 'id_rsa', 'id_ed25519', '.npmrc', 'credentials', 'credentials.json', '.aws/config', 'secrets.yaml', 'config/app.secrets', 'infra/terraform.tfstate']) {
      expect(blockedReason(p), p).toMatch(/^blocked: /);
    }
    for (const p of ['src/env.ts', 'src/secrets.ts', 'src/secret-santa.ts', 'docs/keys.md', 'src/credentials-form.tsx', 'environment.ts']) {
      expect(blockedReason(p), p).toBeNull();
    }
  });

  it('classifies by content first, then by path', () => {
    expect(classifyFile('src/a.ts', [{ kind: 'jwt', line: 1 }], [])).toBe('restricted');
    expect(classifyFile('src/a.ts', [], [{ kind: 'card_number', line: 1 }])).toBe('restricted');
    expect(classifyFile('README.md', [], [{ kind: 'email', line: 1 }])).toBe('confidential');
    expect(classifyFile('infra/main.tf', [], [])).toBe('confidential');
    expect(classifyFile('docker-compose.yml', [], [])).toBe('confidential');
    expect(classifyFile('README.md', [], [])).toBe('public');
    expect(classifyFile('public/index.html', [], [])).toBe('public');
    expect(classifyFile('src/server.ts', [], [])).toBe('internal');
  });
});
