/**
 * Files that are never read (spec rule 7): environment and credential files. Checked on
 * the path alone, before anything opens the file, by every reader (local directory,
 * inline upload) and again by the analyser.
 */

const blockedNames: Array<[RegExp, string]> = [
  [/^\.env(\..*)?$/i, 'environment file'],
  [/^\.envrc$/i, 'environment file'],
  [/\.(pem|key|p12|pfx|jks|keystore|ppk|asc|gpg|kdbx)$/i, 'key or certificate file'],
  [/^id_(rsa|dsa|ecdsa|ed25519)(\.pub)?$/i, 'SSH key'],
  [/^\.(npmrc|yarnrc|yarnrc\.yml|pypirc|netrc|git-credentials|htpasswd|pgpass|my\.cnf|dockercfg)$/i, 'credential file'],
  [/^credentials(\..*)?$/i, 'credential file'],
  // secrets.json/.yaml/...: data files; `secrets.ts` is source code and goes through redaction instead.
  [/^secrets(\.(json|ya?ml|toml|ini|env|txt|properties|xml|conf|cfg|plist))?$/i, 'secrets file'],
  [/\.secrets?$/i, 'secrets file'],
  [/^(terraform\.tfstate|terraform\.tfstate\.backup|.*\.tfvars)$/i, 'infrastructure state or variables'],
  [/^service-account.*\.json$/i, 'cloud service account key'],
];

const blockedDirs: Array<[RegExp, string]> = [
  [/^\.aws$/i, 'AWS credentials folder'],
  [/^\.ssh$/i, 'SSH folder'],
  [/^\.gnupg$/i, 'GnuPG folder'],
  [/^\.docker$/i, 'Docker credentials folder'],
  [/^\.kube$/i, 'Kubernetes credentials folder'],
];

/** Why a path must not be read, or null when it may be. `path` is "/"-separated. */
export function blockedReason(path: string): string | null {
  const parts = path.split(/[\\/]+/).filter(Boolean);
  const name = parts.at(-1) ?? '';
  for (const dir of parts.slice(0, -1)) {
    for (const [re, why] of blockedDirs) if (re.test(dir)) return `blocked: inside ${why} (${dir}/)`;
  }
  for (const [re, why] of blockedDirs) if (re.test(name)) return `blocked: ${why}`;
  for (const [re, why] of blockedNames) if (re.test(name)) return `blocked: ${why}`;
  return null;
}
