import type { ApiRequest } from '../request.js';
import type { AppContext, PluginClass } from '../context.js';
import { reverse as plainReverse, type ReverseParams } from '../routing/reverse.js';

/**
 * A versioning scheme. `determineVersion` reads the version the client asked
 * for (or returns the default); it throws `NotFound` / `NotAcceptable` for a
 * version that is not allowed. `reverse` builds URLs that carry the version
 * of the current request.
 */
export interface Versioning {
  determineVersion(req: ApiRequest, params: Record<string, unknown>): string | null;
  reverse(name: string, params: ReverseParams | undefined, req: ApiRequest | undefined): string;
  /** Request headers the version was read from, for `Vary`. */
  readonly varyHeaders?: readonly string[];
}

export type VersioningClass = PluginClass<Versioning>;

/**
 * Common configuration for the built-in schemes: `defaultVersion`,
 * `allowedVersions` and `versionParam`, read from settings unless a subclass
 * sets them.
 */
export abstract class BaseVersioning implements Versioning {
  defaultVersion: string | null;
  allowedVersions: readonly string[] | null;
  versionParam: string;

  constructor(protected readonly app: AppContext) {
    this.defaultVersion = app.settings.DEFAULT_VERSION;
    this.allowedVersions = app.settings.ALLOWED_VERSIONS;
    this.versionParam = app.settings.VERSION_PARAM;
  }

  abstract determineVersion(req: ApiRequest, params: Record<string, unknown>): string | null;

  reverse(name: string, params: ReverseParams | undefined, req: ApiRequest | undefined): string {
    return plainReverse(name, params, { request: req, versioned: false });
  }

  /** DRF's rule: no list allows anything; the default version is always allowed. */
  isAllowedVersion(version: string | null): boolean {
    if (!this.allowedVersions) return true;
    return (version !== null && version === this.defaultVersion) || this.allowedVersions.includes(version as string);
  }
}
