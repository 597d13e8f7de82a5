import type { FastifyBaseLogger } from 'fastify';
import type { Settings } from './settings.js';

/**
 * Everything a plug-in may need from the application, built once by
 * `createApp()` and shared by every request. Scheme, permission, throttle,
 * pagination and versioning instances receive it in their constructor.
 *
 * Services are optional so the HTTP core runs without a database; the data,
 * token and session modules fill them in.
 */
export interface AppContext {
  readonly settings: Readonly<Settings>;
  readonly log: FastifyBaseLogger;
  /** Named services (database, stores, redis, …) given to `createApp`. */
  readonly services: ServiceRegistry;
  /**
   * The app's one SECRET_KEY (the setting, else `$SECRET_KEY`, else the
   * development key file), resolved on first use and then fixed: tokens,
   * cursors and sessions all use it.
   */
  secretKey(): string;
}

/**
 * Types an application declares once, by declaration merging, so that its
 * database reaches views and handlers without casts:
 *
 * @example
 * declare module 'trestle' {
 *   interface AppTypes { database: MyTables }
 * }
 * // then, in any view: req.app.services.get('db') is Kysely<MyTables>
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the application
export interface AppTypes {}

/** The application's tables (`AppTypes['database']`), or `any` when it declared none. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an undeclared schema is untyped
export type AppDatabase = AppTypes extends { database: infer D } ? D : any;

export interface ServiceMap {
  // Filled by declaration merging in the modules that provide services, e.g.
  //   declare module '../context.js' { interface ServiceMap { users: UserStore } }
}

export interface ServiceRegistry {
  get<K extends keyof ServiceMap>(name: K): ServiceMap[K];
  tryGet<K extends keyof ServiceMap>(name: K): ServiceMap[K] | undefined;
  set<K extends keyof ServiceMap>(name: K, value: ServiceMap[K]): void;
  has(name: keyof ServiceMap): boolean;
}

export class Services implements ServiceRegistry {
  private readonly map = new Map<string, unknown>();

  get<K extends keyof ServiceMap>(name: K): ServiceMap[K] {
    const value = this.map.get(name as string);
    if (value === undefined) {
      throw new Error(`Service "${String(name)}" is not configured on this app.`);
    }
    return value as ServiceMap[K];
  }

  tryGet<K extends keyof ServiceMap>(name: K): ServiceMap[K] | undefined {
    return this.map.get(name as string) as ServiceMap[K] | undefined;
  }

  set<K extends keyof ServiceMap>(name: K, value: ServiceMap[K]): void {
    this.map.set(name as string, value);
  }

  has(name: keyof ServiceMap): boolean {
    return this.map.has(name as string);
  }
}

/** A plug-in class: constructed once per view (or app) with the app context. */
export type PluginClass<T> = new (app: AppContext) => T;
