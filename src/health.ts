import { sql } from 'kysely';
import type { ApiRequest } from './request.js';
import { APIView } from './views/api-view.js';
import { Response } from './response.js';
import { AllowAny } from './permissions.js';
import { JSONRenderer } from './renderers/json.js';
import { redisClient } from './redis.js';

/** What one dependency answered: `ok`, `unavailable` (with why), or `not configured`. */
export type HealthState = 'ok' | 'unavailable' | 'not configured';

/**
 * An opt-in health check for load balancers and orchestrators; an app lists
 * it like any route:
 *
 * ```
 * GET /health/ HTTP/1.1
 *
 * HTTP/1.1 200 OK
 * {"status": "ok", "database": "ok", "redis": "not configured"}
 * ```
 *
 * The database answers `SELECT 1` and Redis (when REDIS_URL is set) `PING`,
 * each within `timeoutMs`; if one does not, the answer is 503 with
 * `"status": "unavailable"` and which one failed. No authentication,
 * permissions or throttles, and never cached. The host check still
 * applies: list the name the prober uses in ALLOWED_HOSTS.
 *
 * @example
 * routes: [path('health/', HealthView), ...]
 */
export class HealthView extends APIView {
  static override viewName = 'Health';
  static override description = 'Whether the service and its database and Redis answer.';
  override authenticationClasses = [];
  override permissionClasses = [AllowAny];
  override throttleClasses = [];
  override rendererClasses = [JSONRenderer];
  /** How long each dependency may take before it counts as unavailable. */
  timeoutMs = 2_000;

  async get(req: ApiRequest): Promise<Response> {
    const [database, redis] = await Promise.all([this.checkDatabase(req), this.checkRedis(req)]);
    const ok = database !== 'unavailable' && redis !== 'unavailable';
    return new Response(
      { status: ok ? 'ok' : 'unavailable', database, redis },
      { status: ok ? 200 : 503, headers: { 'cache-control': 'no-store' } },
    );
  }

  protected async checkDatabase(req: ApiRequest): Promise<HealthState> {
    const database = req.app.services.tryGet('database');
    if (!database) return 'not configured';
    return this.probe(req, 'database', () => sql`select 1`.execute(database.db));
  }

  protected async checkRedis(req: ApiRequest): Promise<HealthState> {
    if (!req.app.settings.REDIS_URL) return 'not configured';
    const client = redisClient(req.app);
    if (!client) return 'not configured';
    return this.probe(req, 'redis', () => client.ping());
  }

  private async probe(req: ApiRequest, name: string, check: () => Promise<unknown>): Promise<HealthState> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        check(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
        }),
      ]);
      return 'ok';
    } catch (err) {
      req.raw.log.warn({ err }, `health check: ${name} unavailable`);
      return 'unavailable';
    } finally {
      clearTimeout(timer);
    }
  }
}
