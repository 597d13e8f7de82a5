import { Writable } from 'node:stream';
import type { Kysely, KyselyPlugin, SelectQueryBuilder } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createApp,
  CursorPagination,
  FilterSetBackend,
  hyperlinkedIdentity,
  integer,
  ListAPIView,
  OrderingFilter,
  path,
  RetrieveAPIView,
  SearchFilter,
  serializer,
  string,
  type Serializer,
  SystemCheckError,
  type ApiRequest,
  type Database,
  type SettingsInput,
  type TrestleApp,
} from '../../src/index.js';
import { testDatabases } from '../helpers/databases.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyDb = Kysely<any>;
type AnyQuery = SelectQueryBuilder<any, any, any>;
type AnySerializer = Serializer<any>;
/* eslint-enable @typescript-eslint/no-explicit-any */

const db = (req: ApiRequest): AnyDb => req.app.services.get('db') as AnyDb;

async function createTables(d: AnyDb): Promise<void> {
  await d.schema.createTable('owner').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('name', 'varchar(100)', (c) => c.notNull()).execute();
  await d.schema
    .createTable('task')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('title', 'varchar(100)', (c) => c.notNull())
    .addColumn('owner_id', 'integer', (c) => c.notNull())
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .execute();
  await d.insertInto('owner').values([{ id: 1, name: 'Ada' }]).execute();
  await d
    .insertInto('task')
    .values([
      { id: 1, title: 'Write', owner_id: 1, created: '2024-01-01' },
      { id: 2, title: 'Read', owner_id: 1, created: '2024-01-02' },
    ])
    .execute();
}

const TaskSerializer = serializer({
  url: hyperlinkedIdentity({ viewName: 'task-detail' }),
  id: integer({ readOnly: true }),
  title: string(),
});

/** The list every test starts from: correct names everywhere. */
class TaskList extends ListAPIView {
  override filterBackends = [FilterSetBackend, SearchFilter, OrderingFilter];
  override serializer: AnySerializer = TaskSerializer;
  orderingFields: readonly string[] = ['title', 'created', 'id'];
  ordering: string | readonly string[] = 'id';
  searchFields: readonly string[] = ['title'];
  filtersetFields: readonly string[] = ['title'];
  override getQueryset(req: ApiRequest): AnyQuery {
    return db(req).selectFrom('task').selectAll();
  }
}

class TaskDetail extends RetrieveAPIView {
  override serializer = TaskSerializer;
  override getQueryset(req: ApiRequest) {
    return db(req).selectFrom('task').selectAll();
  }
}

class TaskCursor extends CursorPagination {
  override ordering: string | readonly string[] = '-created';
  override pageSize = 10;
}

class TaskFeed extends ListAPIView {
  override paginationClass = TaskCursor;
  override getQueryset(req: ApiRequest) {
    return db(req).selectFrom('task').select(['id', 'title', 'created']);
  }
}

interface Built {
  app: TrestleApp;
  warnings: string[];
}

const opened: { app: TrestleApp }[] = [];
afterEach(async () => {
  for (const { app } of opened.splice(0)) await app.close().catch(() => {});
});

/** An app with the task routes, the list view replaced by `list`; warnings logged are collected. */
async function build(database: Database, list: typeof TaskList = TaskList, settings: SettingsInput = {}, feed: typeof TaskFeed = TaskFeed): Promise<Built> {
  const warnings: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      const line = JSON.parse(chunk.toString()) as { level: number; msg: string };
      if (line.level >= 40) warnings.push(line.msg);
      cb();
    },
  });
  const app = await createApp({
    database,
    settings,
    logger: { level: 'warn', stream },
    routes: [path('tasks/', list, { name: 'task-list' }), path('tasks/<int:pk>/', TaskDetail, { name: 'task-detail' }), path('feed/', feed, { name: 'task-feed' })],
  });
  opened.push({ app });
  return { app, warnings };
}

/** The error `ready()` rejects with. */
async function readyError(app: TrestleApp): Promise<SystemCheckError> {
  const err = await app.ready().then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SystemCheckError);
  return err as SystemCheckError;
}

describe.each(testDatabases())('system checks at start-up on $name', ({ open }) => {
  let database: Database;
  afterEach(async () => {
    for (const { app } of opened.splice(0)) await app.close().catch(() => {});
    await database?.close();
  });

  async function fresh(): Promise<Database> {
    database = await open();
    await createTables(database.db as AnyDb);
    return database;
  }

  it('a correct app says nothing and serves', async () => {
    const { app, warnings } = await build(await fresh());
    const res = await app.inject({ method: 'GET', url: '/tasks/?ordering=-title&search=r&title=Read' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual([{ url: 'http://localhost:80/tasks/2/', id: 2, title: 'Read' }]);
    const feed = await app.inject({ method: 'GET', url: '/feed/' });
    expect(feed.statusCode).toBe(200);
    expect(feed.json()).toMatchObject({ next: null, previous: null, results: [{ id: 2 }, { id: 1 }] });
    expect(warnings).toEqual([]);
  });

  it('every misspelt name is one line with its id, the view and a did-you-mean; no request is served', async () => {
    class Misspelt extends TaskList {
      override orderingFields = ['titel', 'id'];
      override ordering = ['-creatd'];
      override searchFields = ['^titel'];
      override filtersetFields = ['titel'];
      override serializer = serializer({ url: hyperlinkedIdentity({ viewName: 'task-detial' }), title: string() });
    }
    class MisspeltCursor extends TaskCursor {
      override ordering = '-creatd';
    }
    class Feed extends TaskFeed {
      override paginationClass = MisspeltCursor;
    }
    const { app } = await build(await fresh(), Misspelt, {}, Feed);
    // The first request does not reach a view: the app cannot become ready.
    const refused = await app.inject({ method: 'GET', url: '/tasks/' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(SystemCheckError);
    const err = await readyError(app);
    expect(err).toBe(refused);
    const where = "Misspelt at /tasks/ (name 'task-list')";
    expect(err.message).toBe(
      [
        'System check identified some issues:',
        '',
        'ERRORS:',
        "Feed at /feed/ (name 'task-feed'): (pagination.E001) 'MisspeltCursor.ordering' refers to '-creatd', but table 'task' has no column 'creatd'.",
        "\tHINT: Did you mean 'created'?",
        `${where}: (filters.E001) 'filtersetFields' refers to 'titel', but table 'task' has no column 'titel'.`,
        "\tHINT: Did you mean 'title'?",
        `${where}: (ordering.E001) 'orderingFields' refers to 'titel', but table 'task' has no column 'titel'.`,
        "\tHINT: Did you mean 'title'?",
        `${where}: (ordering.E002) 'ordering' refers to '-creatd', but table 'task' has no column 'creatd'.`,
        "\tHINT: Did you mean 'created'?",
        `${where}: (search.E001) 'searchFields' refers to '^titel', but table 'task' has no column 'titel'.`,
        "\tHINT: Did you mean 'title'?",
        `${where}: (serializers.E001) 'serializer' field 'url' links to the view name 'task-detial', which no route has.`,
        "\tHINT: Did you mean 'task-detail'?",
        '',
      ].join('\n'),
    );
    expect(String(err)).toMatch(/^SystemCheckError: System check identified some issues:\n\nERRORS:\n/);
  });

  it('a serializer source, a lookup field and a joined table are checked against what the query reads', async () => {
    class Joined extends TaskList {
      override searchFields = ['title', 'o.nmae'];
      override filtersetFields = [];
      override orderingFields = ['owner_name', 'title'];
      override serializer = serializer({ id: integer({ readOnly: true }), titel: string({ source: 'titel' }), owner: string({ source: 'owner_name' }) });
      override getQueryset(req: ApiRequest): AnyQuery {
        return db(req).selectFrom('task as t').innerJoin('owner as o', 'o.id', 't.owner_id').select(['t.id', 't.title', 'o.name as owner_name']);
      }
    }
    class Detail extends TaskDetail {
      override lookupField = 'pk';
    }
    const database = await fresh();
    const app = await createApp({
      database,
      logger: false,
      routes: [path('tasks/', Joined, { name: 'task-list' }), path('tasks/<int:pk>/', Detail, { name: 'task-detail' })],
    });
    opened.push({ app });
    const err = await readyError(app);
    expect(err.messages.map(String)).toEqual([
      "Joined at /tasks/ (name 'task-list'): (search.E001) 'searchFields' refers to 'o.nmae', but table 'owner' (as 'o') has no column 'nmae'.\n\tHINT: Did you mean 'name'?",
      "Joined at /tasks/ (name 'task-list'): (serializers.E002) 'serializer' field 'titel' (source 'titel') reads 'titel', which the view's query does not select.\n\tHINT: Did you mean 'title'?",
      "Detail at /tasks/<int:pk>/ (name 'task-detail'): (views.E001) 'lookupField' refers to 'pk', but table 'task' has no column 'pk'.\n\tHINT: The columns are: 'id', 'title', 'owner_id', 'created'.",
    ]);
  });

  it('a derived table is read through its own selections', async () => {
    class Derived extends TaskList {
      override searchFields = ['title', 'owner_nam'];
      override filtersetFields = [];
      override getQueryset(req: ApiRequest): AnyQuery {
        const joined = db(req).selectFrom('task as t').innerJoin('owner as o', 'o.id', 't.owner_id').selectAll('t').select('o.name as owner_name');
        return db(req).selectFrom(joined.as('row')).selectAll();
      }
    }
    const { app } = await build(await fresh(), Derived);
    const err = await readyError(app);
    expect(err.messages.map(String)).toEqual([
      "Derived at /tasks/ (name 'task-list'): (search.E001) 'searchFields' refers to 'owner_nam', but the derived table 'row' has no column 'owner_nam'.\n\tHINT: Did you mean 'owner_name'?",
    ]);
  });

  it('SILENCED_SYSTEM_CHECKS silences by id, and the app starts', async () => {
    class Misspelt extends TaskList {
      override orderingFields = ['titel', 'id'];
    }
    const { app, warnings } = await build(await fresh(), Misspelt, { SILENCED_SYSTEM_CHECKS: ['ordering.E001'] });
    const res = await app.inject({ method: 'GET', url: '/tasks/?ordering=-id' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { url: 'http://localhost:80/tasks/2/', id: 2, title: 'Read' },
      { url: 'http://localhost:80/tasks/1/', id: 1, title: 'Write' },
    ]);
    expect(warnings).toEqual([]);
  });

  it('what cannot be known is skipped: tables not migrated, arrays, querysets that need a real request', async () => {
    class NotMigrated extends TaskList {
      override orderingFields = ['whatever'];
      override getQueryset(req: ApiRequest): AnyQuery {
        return db(req).selectFrom('not_yet').selectAll();
      }
    }
    class FromArray extends ListAPIView {
      override filterBackends = [OrderingFilter];
      orderingFields = ['nothing'];
      override getQueryset() {
        return [{ id: 1 }];
      }
    }
    class NeedsUser extends TaskList {
      override orderingFields = ['nope'];
      override getQueryset(req: ApiRequest): AnyQuery {
        if (!req.user.isAuthenticated) throw new Error('only for users');
        return super.getQueryset(req);
      }
    }
    const database = await fresh();
    const app = await createApp({
      database,
      logger: false,
      routes: [path('a/', NotMigrated), path('b/', FromArray), path('c/', NeedsUser), path('tasks/<int:pk>/', TaskDetail, { name: 'task-detail' })],
    });
    opened.push({ app });
    await app.ready();
    const res = await app.inject({ method: 'GET', url: '/b/' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([{ id: 1 }]);
  });

  it('the catalogue is read once per table, at ready only', async () => {
    let statements = 0;
    const counter: KyselyPlugin = {
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        statements++;
        return args.result;
      },
    };
    class Counted extends TaskList {
      override getQueryset(req: ApiRequest): AnyQuery {
        return db(req).withPlugin(counter).selectFrom('task').selectAll();
      }
    }
    const database = await fresh();
    const app = await createApp({
      database,
      logger: false,
      routes: [path('tasks/', Counted, { name: 'task-list' }), path('again/', Counted), path('tasks/<int:pk>/', Counted, { name: 'task-detail' })],
    });
    opened.push({ app });
    await app.ready();
    expect(statements).toBe(1);
    await app.ready();
    const res = await app.inject({ method: 'GET', url: '/tasks/' });
    expect(res.statusCode).toBe(200);
    expect(statements).toBe(2);
  });
});
