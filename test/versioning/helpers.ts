import { APIView, createApp, reverse, type ApiRequest, type RouteEntry, type SettingsInput, type TrestleApp } from '../../src/index.js';
import type { ReverseParams } from '../../src/routing/reverse.js';

/** Per-view attributes a test may set. */
export type ViewConfig = Partial<Pick<APIView, 'versioningClass' | 'defaultVersion' | 'allowedVersions' | 'versionParam' | 'rendererClasses'>>;

/**
 * A view answering `{ version, link }`: the request's version and, when
 * `link` is given, `reverse(link.name, link.params, { request })`.
 */
export function versionView(config: ViewConfig = {}, link?: { name: string; params?: ReverseParams }): APIView {
  class VersionView extends APIView {
    get(req: ApiRequest): unknown {
      return {
        version: req.version,
        ...(link ? { link: reverse(link.name, link.params, { request: req }) } : {}),
      };
    }
  }
  return Object.assign(new VersionView(), config);
}

export async function makeApp(routes: RouteEntry[], settings: SettingsInput = {}): Promise<TrestleApp> {
  const app = await createApp({ logger: false, routes, settings });
  await app.ready();
  return app;
}

/** GET with a fixed Host so absolute URLs are predictable. */
export async function get(app: TrestleApp, url: string, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'GET', url, headers: { host: 'localhost', ...headers } });
  const body = res.body === '' ? undefined : (JSON.parse(res.body) as Record<string, unknown>);
  return { status: res.statusCode, headers: res.headers, body };
}
