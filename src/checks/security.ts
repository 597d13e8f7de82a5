import type { Settings } from '../settings.js';
import { checkWarning, type CheckMessage } from './messages.js';

export const SECRET_KEY_MIN_LENGTH = 50;
export const SECRET_KEY_MIN_UNIQUE_CHARACTERS = 5;

/**
 * The checks of Django's `check --deploy` (django/core/checks/security)
 * that Trestle's settings can answer: W009 weak SECRET_KEY, W012 insecure
 * session cookie, W016 insecure CSRF cookie, W018 DEBUG on, W020 empty
 * ALLOWED_HOSTS. Django's words, with Trestle's names where Django names
 * its middleware. HSTS (W004), the SSL redirect (W008) and the other
 * SecurityMiddleware headers have no Trestle setting: a proxy in front sets
 * them (docs/deployment.md), so they are not reported.
 */
export function deployChecks(settings: Readonly<Settings>, env: NodeJS.ProcessEnv): CheckMessage[] {
  const out: CheckMessage[] = [];
  const key = settings.SECRET_KEY || env['SECRET_KEY'] || null;
  if (key === null || new Set(key).size < SECRET_KEY_MIN_UNIQUE_CHARACTERS || key.length < SECRET_KEY_MIN_LENGTH) {
    out.push(
      checkWarning(
        `Your SECRET_KEY has less than ${SECRET_KEY_MIN_LENGTH} characters or less than ${SECRET_KEY_MIN_UNIQUE_CHARACTERS} unique characters` +
          `${key === null ? ', or it is not set (the development key in data/secret_key is used)' : ''}. ` +
          "Please generate a long and random SECRET_KEY, otherwise many of Trestle's security-critical features (tokens, sessions, cursors) will be vulnerable to attack.",
        { id: 'security.W009' },
      ),
    );
  }
  if (!settings.SESSION_COOKIE_SECURE) {
    out.push(
      checkWarning(
        'SESSION_COOKIE_SECURE is not set to True. Using a secure-only session cookie makes it more difficult for network traffic sniffers to hijack user sessions.',
        { id: 'security.W012' },
      ),
    );
  }
  if (!settings.CSRF_COOKIE_SECURE) {
    out.push(
      checkWarning(
        'You have not set CSRF_COOKIE_SECURE to True. Using a secure-only CSRF cookie makes it more difficult for network traffic sniffers to steal the CSRF token.',
        { id: 'security.W016' },
      ),
    );
  }
  if (settings.DEBUG) out.push(checkWarning('You should not have DEBUG set to True in deployment.', { id: 'security.W018' }));
  if (settings.ALLOWED_HOSTS.length === 0) out.push(checkWarning('ALLOWED_HOSTS must not be empty in deployment.', { id: 'security.W020' }));
  return out;
}
