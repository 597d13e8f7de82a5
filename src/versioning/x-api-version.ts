import type { ApiRequest } from '../request.js';
import { BaseVersioning } from './base.js';

/**
 * The custom scheme of DRF's documentation, shipped as a working example of
 * the `Versioning` interface: the version is a request header.
 *
 * ```http
 * GET /something/ HTTP/1.1
 * Host: example.com
 * X-API-Version: 2.0
 * ```
 *
 * No header → `null` (the default version is not used, as in the seed). A
 * value outside `allowedVersions` (when set) is a 404. The URL carries no
 * version, so `reverse` is the plain one; a custom scheme that puts the
 * version in URLs must override `reverse` as `URLPathVersioning` does.
 * Responses carry `Vary: X-API-Version`.
 *
 * @example
 * class ClientVersioning extends XAPIVersionScheme { override headerName = 'X-Client-Version'; }
 */
export class XAPIVersionScheme extends BaseVersioning {
  headerName = 'X-API-Version';
  override invalidVersionMessage = 'Invalid version in "X-API-Version" header.';

  get varyHeaders(): readonly string[] {
    return [this.headerName];
  }

  determineVersion(req: ApiRequest): string | null {
    const value = req.headers[this.headerName.toLowerCase()];
    const version = (Array.isArray(value) ? value[0] : value) ?? null;
    if (version !== null && !this.isAllowedVersion(version)) throw this.invalidVersion();
    return version;
  }
}
