import type { FastifyInstance } from 'fastify';
import type { Command } from '../command.js';
import type { RouteEntry } from '../../routing/routes.js';
import { KyselyUserStore } from '../../users/kysely-user-store.js';

/**
 * `trestle openapi`: prints the project's OpenAPI 3.1 document, the same one
 * `GET /openapi.json` serves. The title and version come from the project's
 * `SchemaView` when its routes have one; `--title` / `--api-version` win.
 */
export const openapiCommand: Command = {
  name: 'openapi',
  summary: 'Print the OpenAPI 3.1 document of the project (JSON).',
  outputIsData: true,
  usage: 'openapi [--title T] [--api-version V] [--compact]',
  help: [
    '--title T         info.title (default: the SchemaView\'s, else "Trestle API")',
    '--api-version V   info.version (default: the SchemaView\'s, else 1.0.0)',
    '--compact         one line instead of indented JSON',
  ],
  options: { title: { type: 'string' }, 'api-version': { type: 'string' }, compact: { type: 'boolean' } },
  async run(ctx, args) {
    const project = (await ctx.project()).config;
    const settings = project.settings ?? {};
    const routes = project.routes ?? [];
    const [{ createApp }, { SchemaGenerator }, { SchemaView }] = await Promise.all([
      import('../../app.js'),
      import('../../schema/generator.js'),
      import('../../schema/schema-view.js'),
    ]);
    let app: FastifyInstance & { trestle?: import('../../context.js').AppContext };
    if (project.createApp) {
      const database = await ctx.database();
      const users = project.userStore ? project.userStore(database) : new KyselyUserStore(database.db);
      app = await project.createApp({ settings, routes, database, users });
    } else {
      // The document comes from the routes alone: no database is opened.
      app = await createApp({ settings, routes });
    }
    try {
      await app.ready();
      if (!app.trestle) throw new Error('The project\'s createApp did not return a Trestle app.');
      const fromView = findSchemaView(routes, SchemaView)?.generator.options ?? {};
      const options = { ...fromView };
      if (typeof args.values['title'] === 'string') options.title = args.values['title'];
      if (typeof args.values['api-version'] === 'string') options.version = args.values['api-version'];
      const doc = new SchemaGenerator(options).generate(app.trestle);
      ctx.print(JSON.stringify(doc, null, args.values['compact'] ? undefined : 2));
    } finally {
      await app.close();
    }
    return 0;
  },
};

function findSchemaView<V>(routes: readonly RouteEntry[], cls: abstract new (...a: never[]) => V): V | null {
  for (const entry of routes) {
    if (entry.kind === 'include') {
      const found = findSchemaView(entry.routes, cls);
      if (found) return found;
    } else if (entry.view instanceof cls) {
      return entry.view;
    }
  }
  return null;
}
