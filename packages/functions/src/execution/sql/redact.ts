/** Keeping database passwords out of messages, logs and results. */

export type Scrub = (text: string) => string;

/** The URL with its password replaced: postgres://user:***@host:5432/db. */
export function redactConnectionUrl(url: URL): string {
  if (!url.password) return url.href;
  const copy = new URL(url.href);
  copy.password = '***';
  return copy.href;
}

/**
 * A function that removes the password (raw, decoded and encoded forms) and the whole
 * connection URL from a text. Driver messages should not contain either, but a message
 * is only shown once it has passed through here.
 */
export function scrubber(rawUrl: string, url: URL): Scrub {
  const secrets = new Set<string>();
  if (url.password) {
    secrets.add(url.password);
    try {
      secrets.add(decodeURIComponent(url.password));
    } catch {
      // a malformed escape: the raw form is enough
    }
    secrets.add(encodeURIComponent(url.password));
  }
  const redactedUrl = redactConnectionUrl(url);
  // Longest first, so that a form containing another is replaced whole.
  const ordered = [...secrets].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text.split(rawUrl).join(redactedUrl);
    for (const s of ordered) out = out.split(s).join('***');
    return out;
  };
}
