import type { APIView } from '../views/api-view.js';
import type { Versioning, VersionDeprecation } from './base.js';
import { BaseVersioning } from './base.js';
import { AcceptHeaderVersioning } from './accept-header.js';
import { URLPathVersioning } from './url-path.js';
import { NamespaceVersioning } from './namespace.js';
import { HostNameVersioning } from './host-name.js';
import { QueryParameterVersioning } from './query-parameter.js';
import { XAPIVersionScheme } from './x-api-version.js';

/** Where a scheme reads the version, in OpenAPI's words where they apply. */
export type VersionLocation = 'path' | 'query' | 'header' | 'host' | 'namespace' | 'media-type' | 'custom';

/** What the OpenAPI generator needs to document a view's versions. */
export interface VersioningDescription {
  /** The scheme's class name (`URLPathVersioning`). */
  readonly scheme: string;
  readonly location: VersionLocation;
  /** The path/query/media-type parameter or header name; `null` for host and namespace. */
  readonly name: string | null;
  readonly defaultVersion: string | null;
  /** `null` when any version is accepted. */
  readonly allowedVersions: readonly string[] | null;
  /** Every version known: allowed ones plus the default, in that order, without repeats. */
  readonly versions: readonly string[];
  readonly deprecated: Readonly<Record<string, VersionDeprecation>>;
}

/**
 * The versions a view (or a scheme instance) accepts and where they are
 * read, or `null` when the view is not versioned. The view must be bound.
 *
 * @example
 * listVersions(view) // { scheme: 'URLPathVersioning', location: 'path', name: 'version', versions: ['v1', 'v2'], … }
 */
export function listVersions(target: APIView | Versioning): VersioningDescription | null {
  const scheme = 'policies' in target ? target.policies.versioning : target;
  if (!scheme) return null;
  const base = scheme instanceof BaseVersioning ? scheme : null;
  const allowed = base?.allowedVersions && base.allowedVersions.length > 0 ? [...base.allowedVersions] : null;
  const defaultVersion = base?.defaultVersion ?? null;
  const versions = [...(allowed ?? [])];
  if (defaultVersion !== null && !versions.includes(defaultVersion)) versions.push(defaultVersion);
  const [location, name] = locate(scheme);
  return {
    scheme: scheme.constructor.name,
    location,
    name,
    defaultVersion,
    allowedVersions: allowed,
    versions,
    deprecated: base?.deprecatedVersions ?? {},
  };
}

function locate(scheme: Versioning): [VersionLocation, string | null] {
  if (scheme instanceof XAPIVersionScheme) return ['header', scheme.headerName];
  if (!(scheme instanceof BaseVersioning)) return ['custom', null];
  if (scheme instanceof URLPathVersioning) return ['path', scheme.versionParam];
  if (scheme instanceof QueryParameterVersioning) return ['query', scheme.versionParam];
  if (scheme instanceof AcceptHeaderVersioning) return ['media-type', scheme.versionParam];
  if (scheme instanceof HostNameVersioning) return ['host', null];
  if (scheme instanceof NamespaceVersioning) return ['namespace', null];
  return ['custom', null];
}
