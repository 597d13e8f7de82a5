import type { MediaType } from '../media-types.js';
import type { ApiRequest } from '../request.js';
import type { Response } from '../response.js';
import type { AppContext, PluginClass } from '../context.js';

export interface RenderContext {
  request: ApiRequest | null;
  response: Response;
  view: unknown;
}

/** Turns response data into bytes for one media type. */
export interface Renderer {
  /** The media type offered, e.g. `application/json` or `application/vnd.acme+json`. */
  readonly mediaType: string;
  /** The `?format=` name. */
  readonly format: string;
  /** Appended to Content-Type as `; charset=…` when not null. */
  readonly charset: string | null;
  render(data: unknown, accepted: MediaType, ctx: RenderContext): string | Buffer;
}

export type RendererClass = PluginClass<Renderer>;
export type { AppContext };
