import type { FastifyInstance } from 'fastify';
import type { AppContext } from './context.js';

/**
 * A module that contributes to every app (stores, hooks, routes of its
 * own). Modules register themselves at import time; `createApp` runs them in
 * order after the caller's services are in place.
 *
 * This file imports nothing at run time, so a module may register itself
 * from anywhere in the import graph without meeting an uninitialised list.
 */
export type AppInstaller = (app: AppContext, fastify: FastifyInstance) => void | Promise<void>;

const installers: AppInstaller[] = [];

export function registerInstaller(installer: AppInstaller): void {
  if (!installers.includes(installer)) installers.push(installer);
}

export function registeredInstallers(): readonly AppInstaller[] {
  return installers;
}
