import type { ApiRequest } from '../request.js';
import type { AppContext, PluginClass } from '../context.js';
import { ApiError, NotFound } from '../exceptions.js';
import { reverse as plainReverse, type ReverseParams } from '../routing/reverse.js';

/**
 * A versioning scheme. `determineVersion` reads the version the client asked
 * for (or returns the default); it throws `NotFound` / `NotAcceptable` for a
 * version that is not allowed. `reverse` builds URLs that carry the version
 * of the current request.
 *
 * @example
 * // The seed's custom scheme: the version is whatever X-API-Version says.
 * class XAPIVersionScheme extends BaseVersioning {
 *   override varyHeaders = ['X-API-Version'];
 *   determineVersion(req: ApiRequest) {
 *     const value = req.headers['x-api-version'];
 *     return (Array.isArray(value) ? value[0] : value) ?? null;
 *   }
 * }
 */
export interface Versioning {
  determineVersion(req: ApiRequest, params: Record<string, unknown>): string | null;
  /** Only a scheme that puts the version in the URL needs more than the plain reverse. */
  reverse(name: string, params: ReverseParams | undefined, req: ApiRequest | undefined): string;
  /** Request headers the version was read from, for `Vary`. */
  readonly varyHeaders?: readonly string[];
  /** Extra headers for every response of a versioned request (deprecation). */
  responseHeaders?(req: ApiRequest): Readonly<Record<string, string>> | null;
}

export type VersioningClass = PluginClass<Versioning>;

/**
 * A version on its way out. Responses to it carry `Deprecation: @<since>`
 * (RFC 9745), `Sunset: <HTTP-date>` (RFC 8594) and
 * `Link: <link>; rel="deprecation"`.
 */
export interface VersionDeprecation {
  /** When the version was (or will be) deprecated. */
  readonly since: Date;
  /** When the version stops working. */
  readonly sunset?: Date;
  /** Where the migration guide lives. */
  readonly link?: string;
}

/** Places a client can state a version besides the scheme's own, for cross-checks. */
export type VersionSource = 'path' | 'query' | 'accept';

/** 400: the request states two different versions (Trestle's addition to DRF). */
export class VersionConflict extends ApiError {
  static override statusCode = 400;
  static override defaultDetail = 'Conflicting versions in the request.';
  static override defaultCode = 'version_conflict';
}

const SOURCE_LABELS: Readonly<Record<VersionSource, string>> = {
  path: 'URL path',
  query: 'query parameter',
  accept: '"Accept" header',
};

/** `obj[key]` without reaching into `Object.prototype` (a `?constructor=` must not find a function). */
export function ownValue<T>(obj: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return obj !== undefined && Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** Long client values are cut in messages; the body stays small. */
function shown(value: string): string {
  return value.length > 40 ? `${value.slice(0, 40)}…` : value;
}

/**
 * Common configuration for the built-in schemes: `defaultVersion`,
 * `allowedVersions` and `versionParam`, read from settings unless a subclass
 * or the view (`defaultVersion`, `allowedVersions`, `versionParam`) sets them.
 */
export abstract class BaseVersioning implements Versioning {
  defaultVersion: string | null;
  allowedVersions: readonly string[] | null;
  versionParam: string;
  /** The error message for a version that is not allowed. */
  invalidVersionMessage = 'Invalid version.';
  /** The error for a request that states two different versions. */
  conflictingVersionMessage = 'Conflicting versions in the request: {source} says "{version}", {other} says "{otherVersion}".';
  /** Shown in the conflict message as where this scheme read the version. */
  sourceLabel = 'request';
  /**
   * Hardening switch, off by default as DRF reads one place only: when on, a
   * different version stated in `crossCheckSources` is a 400.
   */
  rejectConflictingVersions: boolean;
  /**
   * Other places checked for a different version once this scheme has read
   * one from its own source, when `rejectConflictingVersions` is on.
   */
  crossCheckSources: readonly VersionSource[] = [];
  /** Versions that still work but announce their end: `{ v1: { since, sunset, link } }`. */
  deprecatedVersions: Readonly<Record<string, VersionDeprecation>> = {};

  constructor(protected readonly app: AppContext) {
    this.defaultVersion = app.settings.DEFAULT_VERSION;
    this.allowedVersions = app.settings.ALLOWED_VERSIONS;
    this.versionParam = app.settings.VERSION_PARAM;
    this.rejectConflictingVersions = app.settings.REJECT_CONFLICTING_VERSIONS;
  }

  abstract determineVersion(req: ApiRequest, params: Record<string, unknown>): string | null;

  reverse(name: string, params: ReverseParams | undefined, req: ApiRequest | undefined): string {
    return plainReverse(name, params, { request: req, versioned: false });
  }

  /**
   * DRF's rule: no list (or an empty one) allows anything; the default
   * version is always allowed unless it is `null`.
   */
  isAllowedVersion(version: string | null): boolean {
    if (!this.allowedVersions || this.allowedVersions.length === 0) return true;
    if (version === null) return false;
    return version === this.defaultVersion || this.allowedVersions.includes(version);
  }

  /** The error this scheme raises for a version that is not allowed (404 unless overridden). */
  invalidVersion(): ApiError {
    return new NotFound(this.invalidVersionMessage);
  }

  /**
   * Throws `VersionConflict` when `rejectConflictingVersions` is on and
   * another place in the request (`crossCheckSources`) states a version
   * different from `version`.
   */
  protected checkConflicts(req: ApiRequest, version: string): void {
    if (!this.rejectConflictingVersions) return;
    for (const source of this.crossCheckSources) {
      for (const other of this.statedVersions(req, source)) {
        if (other === version) continue;
        throw new VersionConflict(
          this.conflictingVersionMessage
            .replace('{source}', this.sourceLabel)
            .replace('{version}', shown(version))
            .replace('{other}', SOURCE_LABELS[source])
            .replace('{otherVersion}', shown(other)),
        );
      }
    }
  }

  /** The versions a request states in one place (several for repeated query parameters). */
  protected statedVersions(req: ApiRequest, source: VersionSource): string[] {
    const name = this.versionParam;
    if (source === 'query') return req.queryParams.getAll(name);
    const value = source === 'path' ? ownValue(req.params, name) : ownValue(req.acceptedMediaType?.params, name);
    return value === undefined || value === null ? [] : [String(value)];
  }

  /** `Deprecation`, `Sunset` and `Link` for a deprecated version, else `null`. */
  responseHeaders(req: ApiRequest): Readonly<Record<string, string>> | null {
    const version = req.version;
    if (version === null || !Object.hasOwn(this.deprecatedVersions, version)) return null;
    return deprecationHeaders(this.deprecatedVersions[version]!);
  }
}

// Header values are built once per deprecation entry.
const headerCache = new WeakMap<VersionDeprecation, Readonly<Record<string, string>>>();

/** The three headers of RFC 9745 / RFC 8594 for one deprecation. */
export function deprecationHeaders(d: VersionDeprecation): Readonly<Record<string, string>> {
  const cached = headerCache.get(d);
  if (cached) return cached;
  const out: Record<string, string> = { Deprecation: `@${Math.floor(d.since.getTime() / 1000)}` };
  if (d.sunset) out['Sunset'] = d.sunset.toUTCString();
  if (d.link) out['Link'] = `<${d.link}>; rel="deprecation"`;
  Object.freeze(out);
  headerCache.set(d, out);
  return out;
}
