/**
 * Which links a crawler must never follow: anything that signs the user out, destroys
 * data or downloads a file. Crawling must leave the application as it found it.
 */

const DESTRUCTIVE_WORDS = /\b(log\s*-?\s*out|logout|sign\s*-?\s*out|signout|log\s*off|logoff|delete|remove|destroy|unsubscribe|deactivate|reset|drop|purge|wipe|erase|cancel\s+(my\s+)?(account|subscription))\b/i;
const DESTRUCTIVE_PATH = /(^|[/_.?&=-])(logout|log-out|signout|sign-out|sign_out|log_out|logoff|delete|remove|destroy|unsubscribe|deactivate|purge)([/_.?&=-]|$)/i;
const DOWNLOAD_EXTENSIONS = /\.(zip|gz|tgz|tar|rar|7z|pdf|exe|dmg|msi|pkg|deb|rpm|apk|iso|bin|csv|xlsx?|docx?|pptx?|mp3|mp4|mov|avi|mkv|wav|jar|img)$/i;

export type UnsafeReason = 'logout_or_destructive' | 'download' | 'not_http';

export interface LinkInfo {
  href: string;
  text?: string;
  /** The element carries a download attribute. */
  download?: boolean;
}

/** Why a link must not be followed, or undefined when it is safe. */
export function unsafeLinkReason(link: LinkInfo): UnsafeReason | undefined {
  const href = link.href.trim();
  if (/^(mailto|tel|javascript|data|blob|file|ftp):/i.test(href)) return 'not_http';
  if (link.download) return 'download';
  if (link.text && DESTRUCTIVE_WORDS.test(link.text)) return 'logout_or_destructive';
  let path = href;
  try {
    const u = new URL(href, 'http://x.invalid');
    path = u.pathname + u.search;
    if (DOWNLOAD_EXTENSIONS.test(u.pathname)) return 'download';
  } catch {
    // keep the raw text
  }
  if (DESTRUCTIVE_PATH.test(path)) return 'logout_or_destructive';
  return undefined;
}

/** Forms are only ever recorded; a crawler may follow one only when it is a GET search-like form. */
export function isSafeFormMethod(method: string | undefined): boolean {
  return (method ?? 'get').toLowerCase() === 'get';
}
