import type { ApiRequest } from '../request.js';
import { BaseVersioning, type VersionSource } from './base.js';

/**
 * The version is the first label of the host name:
 *
 * ```http
 * GET /something/ HTTP/1.1
 * Host: v1.example.com
 * Accept: application/json
 * ```
 *
 * The port is ignored; a host the pattern does not match (an IP address,
 * `localhost`) gets the default version. The host is checked against
 * ALLOWED_HOSTS first (400 otherwise). URLs keep the request's host, so
 * `reverse` is the plain one. Responses carry `Vary: Host`.
 */
export class HostNameVersioning extends BaseVersioning {
  /** The first group is the version. */
  hostnameRegex: RegExp = /^([a-zA-Z0-9]+)\.[a-zA-Z0-9]+\.[a-zA-Z0-9]+$/;
  override invalidVersionMessage = 'Invalid version in hostname.';
  override sourceLabel = 'hostname';
  override crossCheckSources: readonly VersionSource[] = ['path', 'query', 'accept'];
  readonly varyHeaders: readonly string[] = ['Host'];

  determineVersion(req: ApiRequest): string | null {
    const host = req.getHost();
    const colon = host.indexOf(':');
    const match = this.hostnameRegex.exec(colon === -1 ? host : host.slice(0, colon));
    if (!match || match[1] === undefined) return this.defaultVersion;
    const version = match[1];
    if (!this.isAllowedVersion(version)) throw this.invalidVersion();
    this.checkConflicts(req, version);
    return version;
  }
}
