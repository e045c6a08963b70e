import { api, ApiError, markSession, maySessionExist } from './api.js';

/**
 * Where to go after signing in: the `next` query parameter when it is a path
 * on this origin ("/..." but not "//..." or "/\..."), else "/".
 * @returns {string}
 */
export function nextPath() {
  const next = new URLSearchParams(location.search).get('next');
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  if (/[\u0000-\u001f\u007f]/.test(next)) return '/';
  try {
    const url = new URL(next, location.origin);
    if (url.origin !== location.origin || url.pathname.startsWith('/sign-in')) return '/';
    return url.pathname + url.search + url.hash;
  } catch {
    return '/';
  }
}

const form = /** @type {HTMLFormElement} */ (document.getElementById('sign-in-form'));
const email = /** @type {HTMLInputElement} */ (document.getElementById('email'));
const password = /** @type {HTMLInputElement} */ (document.getElementById('password'));
const error = /** @type {HTMLElement} */ (document.getElementById('sign-in-error'));
const submit = /** @type {HTMLButtonElement} */ (form.querySelector('button[type="submit"]'));

/** @param {string} message */
function showError(message) {
  error.textContent = message;
  error.hidden = false;
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  error.hidden = true;
  if (!email.value.trim() || !password.value) {
    showError('Enter your email and password.');
    (email.value.trim() ? password : email).focus();
    return;
  }

  submit.disabled = true;
  submit.textContent = 'Signing in…';
  try {
    await api('/api/auth/login', {
      method: 'POST',
      body: { email: email.value.trim(), password: password.value },
      organization: false,
      redirectOn401: false,
    });
    markSession(true);
    location.assign(nextPath());
  } catch (err) {
    showError(err instanceof ApiError ? err.message : 'Something went wrong. Please try again.');
    password.select();
    submit.disabled = false;
    submit.textContent = 'Sign in';
  }
});

/**
 * A page load after the 15-minute access token expired lands here even when the
 * refresh cookie (scoped to /api/auth, so the server never sees it on page loads) is
 * still valid: try it once before asking for the password again. Only when this browser
 * may have a session (api.js's mark): a first visit, or one after signing out, would only
 * get a 401, which the browser logs as a failed request.
 */
async function resumeSession() {
  if (!maySessionExist()) {
    email.focus();
    return;
  }
  try {
    const res = await fetch('/api/auth/refresh', { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: '{}' });
    if (res.ok || res.status === 401) markSession(res.ok);
    if (res.ok) {
      location.replace(nextPath());
      return;
    }
  } catch {
    // Offline or server down: the form below still works once it is back.
  }
  email.focus();
}

void resumeSession();
