import type { ApiRequest } from '../request.js';
import type { ReverseParams } from '../routing/reverse.js';
import { replaceQueryParam } from '../utils/urls.js';
import { BaseVersioning, type VersionSource } from './base.js';

/**
 * The version is a query parameter named `versionParam`:
 *
 * ```http
 * GET /something/?version=0.1 HTTP/1.1
 * Host: example.com
 * Accept: application/json
 * ```
 *
 * A repeated parameter counts by its last value, as DRF. `reverse` adds
 * `?version=` to the URL.
 */
export class QueryParameterVersioning extends BaseVersioning {
  override invalidVersionMessage = 'Invalid version in query parameter.';
  override sourceLabel = 'query parameter';
  override crossCheckSources: readonly VersionSource[] = ['path', 'accept'];

  determineVersion(req: ApiRequest): string | null {
    const all = req.queryParams.getAll(this.versionParam);
    const stated = all.length === 0 ? undefined : all[all.length - 1];
    const version = stated ?? this.defaultVersion;
    if (!this.isAllowedVersion(version)) throw this.invalidVersion();
    if (stated !== undefined) this.checkConflicts(req, stated);
    return version;
  }

  override reverse(name: string, params: ReverseParams | undefined, req: ApiRequest | undefined): string {
    const url = super.reverse(name, params, req);
    const version = req?.version ?? null;
    return version === null ? url : replaceQueryParam(url, this.versionParam, version);
  }
}
