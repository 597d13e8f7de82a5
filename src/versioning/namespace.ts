import type { ApiRequest } from '../request.js';
import type { ReverseParams } from '../routing/reverse.js';
import { BaseVersioning, type VersionSource } from './base.js';

/**
 * The version is the namespace of the `include()` that matched; to the
 * client this looks like URL-path versioning:
 *
 * ```http
 * GET /v1/something/ HTTP/1.1
 * Host: example.com
 * Accept: application/json
 * ```
 *
 * with `include('v1/', routes, { namespace: 'v1' })`. Nested namespaces
 * (`api:v1`) give the first part that is an allowed version. `reverse`
 * prefixes the route name with the version: `item-list` → `v1:item-list`.
 */
export class NamespaceVersioning extends BaseVersioning {
  override invalidVersionMessage = 'Invalid version in URL path. Does not match any version namespace.';
  override sourceLabel = 'URL path';
  override crossCheckSources: readonly VersionSource[] = ['path', 'query', 'accept'];

  determineVersion(req: ApiRequest): string | null {
    const namespace = req.resolverMatch?.namespace;
    if (!namespace) return this.defaultVersion;
    for (const version of namespace.split(':')) {
      if (this.isAllowedVersion(version)) {
        this.checkConflicts(req, version);
        return version;
      }
    }
    throw this.invalidVersion();
  }

  override reverse(name: string, params: ReverseParams | undefined, req: ApiRequest | undefined): string {
    const version = req?.version ?? null;
    return super.reverse(version === null ? name : `${version}:${name}`, params, req);
  }
}
