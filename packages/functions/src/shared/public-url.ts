import { z } from 'zod';

/**
 * SVC_PUBLIC_URL: where people reach this svc (a proxy, a tunnel, the AWS function URL or
 * a domain in front of it). The server cannot know it — locally it listens on loopback —
 * so it is configured; links that leave svc (a commit status's target_url) use it. One
 * schema for every entry point that reads it (local config, the API and task functions).
 */
export const PublicUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .refine((u) => !/[?#]/.test(u), 'a base URL without query or fragment')
  .transform((u) => u.replace(/\/+$/, ''))
  .describe('Where people reach this svc: commit statuses link to run reports there (none: no link)');
