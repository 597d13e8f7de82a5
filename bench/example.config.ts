/**
 * The example project (the repository's trestle.config.ts) as an operator
 * deploys it for W7 through `trestle serve --workers N`: its own settings,
 * routes and app, with the host names it answers to set, as production
 * requires (the harness runs servers with NODE_ENV=production).
 */
import { defineProject } from '../src/project.js';
import project from '../trestle.config.js';

export default defineProject({
  ...project,
  settings: { ...project.settings, ALLOWED_HOSTS: ['127.0.0.1', 'localhost'] },
});
