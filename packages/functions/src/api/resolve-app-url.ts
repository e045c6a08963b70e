import { validationFailed } from '@svc/core/errors';

/**
 * The URL a route opens in the server's browser: an absolute http(s) URL as given, or a
 * path resolved against the project's app_url (none given: the app_url itself). Errors
 * name `field`. Shared by the routes that open a project's page (quality audit, act).
 */
export function resolveAppUrl(given: string | undefined, appUrl: string | undefined, field = 'url'): string {
  if (given === undefined) {
    if (!appUrl) throw validationFailed([{ path: field, message: 'required when the project has no app_url' }]);
    return appUrl;
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(given)) {
    if (!/^https?:\/\//i.test(given) || !URL.canParse(given)) throw validationFailed([{ path: field, message: 'must be an absolute http(s) URL or a path' }]);
    return given;
  }
  if (!appUrl) throw validationFailed([{ path: field, message: 'a path needs the project\'s app_url to resolve against; give an absolute URL' }]);
  return new URL(given, appUrl.endsWith('/') ? appUrl : `${appUrl}/`).href;
}
