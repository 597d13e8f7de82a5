import { registerInstaller, type AppInstaller } from '../installers.js';
import { closeRedis } from '../redis.js';

/** Closes the shared Redis connection (sessions, throttles) when the app closes. */
export const installSessions: AppInstaller = (app, fastify) => {
  fastify.addHook('onClose', async () => closeRedis(app));
};

registerInstaller(installSessions);
