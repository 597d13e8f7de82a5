import type { ApiRequest } from '../request.js';
import { NotAcceptable, type ApiError } from '../exceptions.js';
import { BaseVersioning, ownValue, type VersionSource } from './base.js';

/**
 * The version is a parameter of the negotiated media type:
 *
 * ```http
 * GET /something/ HTTP/1.1
 * Host: example.com
 * Accept: application/json; version=1.0
 * ```
 *
 * URLs carry no version, so `reverse` is the plain one. Responses carry
 * `Vary: Accept`. A version not allowed is a 406.
 */
export class AcceptHeaderVersioning extends BaseVersioning {
  override invalidVersionMessage = 'Invalid version in "Accept" header.';
  override sourceLabel = '"Accept" header';
  override crossCheckSources: readonly VersionSource[] = ['path', 'query'];
  readonly varyHeaders: readonly string[] = ['Accept'];

  determineVersion(req: ApiRequest): string | null {
    const stated = ownValue(req.acceptedMediaType?.params, this.versionParam);
    const version = stated ?? this.defaultVersion;
    if (!this.isAllowedVersion(version)) throw this.invalidVersion();
    if (stated !== undefined) this.checkConflicts(req, stated);
    return version;
  }

  override invalidVersion(): ApiError {
    return new NotAcceptable(this.invalidVersionMessage);
  }
}
