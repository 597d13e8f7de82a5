import type { ApiRequest } from '../request.js';
import type { ReverseParams } from '../routing/reverse.js';
import { BaseVersioning, ownValue, type VersionSource } from './base.js';

/**
 * The version is a path parameter named `versionParam`:
 *
 * ```http
 * GET /v1/something/ HTTP/1.1
 * Host: example.com
 * Accept: application/json
 * ```
 *
 * with a route such as `path('<version>/something/', SomethingView)`.
 * `reverse` fills the version of the current request into the URL.
 */
export class URLPathVersioning extends BaseVersioning {
  override invalidVersionMessage = 'Invalid version in URL path.';
  override sourceLabel = 'URL path';
  override crossCheckSources: readonly VersionSource[] = ['query', 'accept'];

  determineVersion(req: ApiRequest, params: Record<string, unknown>): string | null {
    const raw = ownValue(params, this.versionParam);
    // A converter may have made it a number; versions are strings.
    const stated = raw === undefined || raw === null ? null : String(raw);
    const version = stated ?? this.defaultVersion;
    if (!this.isAllowedVersion(version)) throw this.invalidVersion();
    if (stated !== null) this.checkConflicts(req, stated);
    return version;
  }

  override reverse(name: string, params: ReverseParams | undefined, req: ApiRequest | undefined): string {
    const version = req?.version ?? null;
    const filled = version === null ? params : { ...params, [this.versionParam]: version };
    return super.reverse(name, filled, req);
  }
}
