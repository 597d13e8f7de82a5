import {
  apiView,
  createApp,
  IsAuthenticated,
  path,
  TokenAuthentication,
  type ApiRequest,
  type RouteEntry,
  type SettingsInput,
  type Token,
  type TokenStore,
  type TrestleApp,
} from '../../src/index.js';
import { migrate } from '../../src/db/migrate.js';
import type { Database } from '../../src/db/database.js';
import { KyselyUserStore } from '../../src/users/kysely-user-store.js';
import type { UserStore } from '../../src/users/store.js';
import { CustomAuthToken } from '../../example/tokens.js';
import { obtainAuthToken } from '../../src/index.js';

export const TEST_SECRET = 'test-secret-key-for-tokens';

/** Cheap password hashes: these tests are about tokens, not scrypt's cost. */
export const FAST_HASH = { ln: 4, r: 8, p: 1 };

export class BearerAuthentication extends TokenAuthentication {
  override keyword = 'Bearer';
}

/** `GET /me/` (Token) and `GET /bearer/me/` (Bearer): who the request is, and its token's key. */
function whoAmI(req: ApiRequest) {
  return { username: req.user.username, key: (req.auth as Token).key };
}

export interface TokenTestApp {
  app: TrestleApp;
  database: Database;
  users: UserStore;
  tokens: TokenStore;
  close(): Promise<void>;
}

/** A migrated database, the default user store and an app with the token routes. */
export async function tokenApp(
  open: () => Promise<Database>,
  settings: SettingsInput = {},
  services: { tokens?: TokenStore } = {},
): Promise<TokenTestApp> {
  const database = await open();
  await migrate(database);
  const users = new KyselyUserStore(database.db, { hashParams: FAST_HASH });
  const routes: RouteEntry[] = [
    path('api-token-auth/', obtainAuthToken),
    path('api-token-auth/custom/', CustomAuthToken),
    path('me/', apiView(['GET'], whoAmI, { authenticationClasses: [TokenAuthentication], permissionClasses: [IsAuthenticated] })),
    path('bearer/me/', apiView(['GET'], whoAmI, { authenticationClasses: [BearerAuthentication], permissionClasses: [IsAuthenticated] })),
  ];
  const app = await createApp({
    logger: false,
    settings: { SECRET_KEY: TEST_SECRET, ...settings },
    routes,
    database,
    users,
    services,
  });
  await app.ready();
  return {
    app,
    database,
    users,
    tokens: app.trestle.services.get('tokens'),
    async close() {
      await app.close();
      await database.close();
    },
  };
}

export interface Reply {
  status: number;
  headers: Record<string, unknown>;
  body: unknown;
}

function reply(res: { statusCode: number; headers: Record<string, unknown>; body: string }): Reply {
  return { status: res.statusCode, headers: res.headers, body: res.body === '' ? undefined : JSON.parse(res.body) };
}

export async function postJson(app: TrestleApp, url: string, body: unknown): Promise<Reply> {
  return reply(
    await app.inject({ method: 'POST', url, headers: { host: 'localhost', 'content-type': 'application/json' }, payload: JSON.stringify(body) }),
  );
}

export async function postForm(app: TrestleApp, url: string, body: Record<string, string>): Promise<Reply> {
  return reply(
    await app.inject({
      method: 'POST',
      url,
      headers: { host: 'localhost', 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(body).toString(),
    }),
  );
}

export async function getWith(app: TrestleApp, url: string, authorization?: string): Promise<Reply> {
  const headers: Record<string, string> = { host: 'localhost' };
  if (authorization !== undefined) headers['authorization'] = authorization;
  return reply(await app.inject({ method: 'GET', url, headers }));
}
