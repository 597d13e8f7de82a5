import type { Authentication } from '../authentication/base.js';
import type { Settings } from '../settings.js';
import { BasicAuthentication } from '../authentication/basic.js';
import { SessionAuthentication } from '../authentication/session.js';
import { TokenAuthentication } from '../authentication/token.js';
import type { OpenAPISecurityScheme } from './types.js';

/** A security scheme with the name it is registered under in `components.securitySchemes`. */
export interface NamedSecurityScheme {
  readonly name: string;
  readonly scheme: OpenAPISecurityScheme;
}

/**
 * An authentication scheme may describe itself for OpenAPI; the built-in
 * schemes are recognised without it.
 *
 * @example
 * class ApiKeyAuthentication implements Authentication, DescribesSecurity {
 *   openapiSecurity() { return { name: 'apiKey', scheme: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } }; }
 *   async authenticate(req: ApiRequest) { … }
 * }
 */
export interface DescribesSecurity {
  openapiSecurity(): NamedSecurityScheme | null;
}

function describesSecurity(auth: Authentication): auth is Authentication & DescribesSecurity {
  return typeof (auth as Partial<DescribesSecurity>).openapiSecurity === 'function';
}

/**
 * The OpenAPI security scheme of an authentication instance, or `null` when
 * it has none a client can use (remote-user, custom ones without
 * `openapiSecurity`):
 * - Basic: `http`/`basic`;
 * - Token (and subclasses with another keyword): `apiKey` in the
 *   `Authorization` header, described as `Token <key>`;
 * - Session: `apiKey` in the session cookie (with the CSRF header noted).
 */
export function securitySchemeFor(auth: Authentication, settings: Readonly<Settings>): NamedSecurityScheme | null {
  if (describesSecurity(auth)) return auth.openapiSecurity();
  if (auth instanceof BasicAuthentication) {
    return {
      name: 'basicAuth',
      scheme: { type: 'http', scheme: 'basic', description: 'HTTP Basic with username and password (HTTPS only).' },
    };
  }
  if (auth instanceof TokenAuthentication) {
    const keyword = auth.keyword;
    return {
      name: keyword === 'Token' ? 'tokenAuth' : `${keyword.toLowerCase()}Auth`,
      scheme: {
        type: 'apiKey',
        in: 'header',
        name: 'Authorization',
        description: `Token-based authentication with required prefix "${keyword}": \`Authorization: ${keyword} <key>\`.`,
      },
    };
  }
  if (auth instanceof SessionAuthentication) {
    return {
      name: 'cookieAuth',
      scheme: {
        type: 'apiKey',
        in: 'cookie',
        name: settings.SESSION_COOKIE_NAME,
        description: `The session of a user logged in on this site; unsafe methods also need the \`${settings.CSRF_HEADER_NAME}\` header with the \`${settings.CSRF_COOKIE_NAME}\` token.`,
      },
    };
  }
  return null;
}
