/**
 * `serializerByVersion` decides for the whole request, as DRF's
 * `get_serializer_class()` per version: a v1 body is validated by the v1
 * serializer, the created row is rendered by it, OPTIONS describes it, and
 * the OpenAPI document offers each version's shapes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Generated, Kysely } from 'kysely';
import {
  createApp,
  generateOpenAPI,
  integer,
  ListCreateAPIView,
  RetrieveUpdateAPIView,
  path,
  serializer,
  string,
  URLPathVersioning,
  type ApiRequest,
  type TrestleApp,
} from '../../src/index.js';
import type { Database } from '../../src/db/database.js';
import { testDatabases } from '../helpers/databases.js';

interface TaskRow {
  id: number;
  title: string;
  owner: string;
}
type DB = { task: Omit<TaskRow, 'id'> & { id: Generated<number> } };

const V2 = serializer({ id: integer({ readOnly: true }), title: string({ maxLength: 40 }), owner: string() }, { name: 'TaskV2' });
const V1 = serializer({ id: integer({ readOnly: true }), name: string({ source: 'title', maxLength: 10 }) }, { name: 'TaskV1' });

class Versions extends URLPathVersioning {
  override allowedVersions = ['v1', 'v2'];
}

function taskView(db: Kysely<DB>) {
  return class Tasks extends ListCreateAPIView<TaskRow, typeof V2> {
    override authenticationClasses = [];
    override permissionClasses = [];
    override paginationClass = null;
    override versioningClass = Versions;
    override serializer = V2;
    override serializerByVersion = { v1: V1 };
    override getQueryset(_req: ApiRequest) {
      return db.selectFrom('task').selectAll().orderBy('id');
    }
    override async performCreate(req: ApiRequest, data: Record<string, unknown>) {
      // v1 has no owner and calls the title `name`.
      const row = req.version === 'v1' ? { title: data['name'] as string, owner: 'v1 client' } : { title: data['title'] as string, owner: data['owner'] as string };
      return db.insertInto('task').values(row).returningAll().executeTakeFirstOrThrow();
    }
  };
}

function taskDetail(db: Kysely<DB>) {
  return class TaskDetail extends RetrieveUpdateAPIView<TaskRow, typeof V2> {
    override authenticationClasses = [];
    override permissionClasses = [];
    override versioningClass = Versions;
    override serializer = V2;
    override serializerByVersion = { v1: V1 };
    override getQueryset(_req: ApiRequest) {
      return db.selectFrom('task').selectAll();
    }
    override async performUpdate(req: ApiRequest, task: TaskRow, data: Record<string, unknown>) {
      const title = (req.version === 'v1' ? data['name'] : data['title']) as string | undefined;
      if (title === undefined) return task;
      return db.updateTable('task').set({ title }).where('id', '=', task.id).returningAll().executeTakeFirstOrThrow();
    }
  };
}

describe.each(testDatabases())('serializerByVersion on $name', ({ open }) => {
  let database: Database;
  let app: TrestleApp;
  beforeAll(async () => {
    database = await open();
    const db = database.db as unknown as Kysely<DB>;
    await db.schema
      .createTable('task')
      .addColumn('id', 'integer', (c) => (database.dialect === 'postgres' ? c.generatedByDefaultAsIdentity().primaryKey() : c.primaryKey().autoIncrement()))
      .addColumn('title', 'varchar(40)', (c) => c.notNull())
      .addColumn('owner', 'varchar(40)', (c) => c.notNull())
      .execute();
    app = await createApp({ logger: false, routes: [path('<version>/tasks/', taskView(db), { name: 'task-list' }), path('<version>/tasks/<int:pk>/', taskDetail(db), { name: 'task-detail' })] });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  const post = async (url: string, body: unknown) => {
    const res = await app.inject({ method: 'POST', url, payload: body as Record<string, unknown> });
    return { status: res.statusCode, type: res.headers['content-type'], body: JSON.parse(res.body) as unknown };
  };

  it('a v1 body is validated by the v1 serializer and the created row rendered by it', async () => {
    expect(await post('/v1/tasks/', { name: 'from v1' })).toEqual({ status: 201, type: 'application/json', body: { id: 1, name: 'from v1' } });
    expect(await post('/v1/tasks/', { name: 'far too long for v1' })).toEqual({
      status: 400,
      type: 'application/json',
      body: { name: ['Ensure this field has no more than 10 characters.'] },
    });
    // The v2 body misses v1's field: the error names v1's field, not v2's.
    expect(await post('/v1/tasks/', { title: 'from v2', owner: 'ann' })).toEqual({ status: 400, type: 'application/json', body: { name: ['This field is required.'] } });
  });

  it('a v2 body is validated and rendered by the default serializer', async () => {
    expect(await post('/v2/tasks/', { name: 'from v1' })).toEqual({
      status: 400,
      type: 'application/json',
      body: { title: ['This field is required.'], owner: ['This field is required.'] },
    });
    const created = await post('/v2/tasks/', { title: 'from v2', owner: 'ann' });
    expect(created).toMatchObject({ status: 201, type: 'application/json', body: { title: 'from v2', owner: 'ann' } });
    const listed = await app.inject({ method: 'GET', url: '/v1/tasks/' });
    expect(listed.statusCode).toBe(200);
    expect(JSON.parse(listed.body)).toEqual([
      { id: 1, name: 'from v1' },
      { id: (created.body as { id: number }).id, name: 'from v2' },
    ]);
  });

  it('OPTIONS describes the version\'s serializer', async () => {
    const v1 = await app.inject({ method: 'OPTIONS', url: '/v1/tasks/' });
    expect(v1.statusCode).toBe(200);
    expect(v1.headers['content-type']).toBe('application/json');
    const actions1 = (JSON.parse(v1.body) as { actions: { POST: Record<string, unknown> } }).actions.POST;
    expect(Object.keys(actions1)).toEqual(['id', 'name']);
    expect(actions1['name']).toMatchObject({ type: 'string', required: true, max_length: 10 });
    const v2 = await app.inject({ method: 'OPTIONS', url: '/v2/tasks/' });
    expect(v2.statusCode).toBe(200);
    expect(Object.keys((JSON.parse(v2.body) as { actions: { POST: Record<string, unknown> } }).actions.POST)).toEqual(['id', 'title', 'owner']);
  });

  it('PATCH validates with the version\'s serializer', async () => {
    const patch = async (url: string, body: unknown) => {
      const res = await app.inject({ method: 'PATCH', url, payload: body as Record<string, unknown> });
      return { status: res.statusCode, type: res.headers['content-type'], body: JSON.parse(res.body) as unknown };
    };
    expect(await patch('/v1/tasks/1/', { name: 'x'.repeat(11) })).toEqual({
      status: 400,
      type: 'application/json',
      body: { name: ['Ensure this field has no more than 10 characters.'] },
    });
    expect(await patch('/v1/tasks/1/', { name: 'renamed' })).toEqual({ status: 200, type: 'application/json', body: { id: 1, name: 'renamed' } });
    expect(await patch('/v2/tasks/1/', { title: 'y'.repeat(41) })).toEqual({
      status: 400,
      type: 'application/json',
      body: { title: ['Ensure this field has no more than 40 characters.'] },
    });
    expect(await patch('/v2/tasks/1/', { title: 'v2 title' })).toEqual({ status: 200, type: 'application/json', body: { id: 1, title: 'v2 title', owner: 'v1 client' } });
  });

  it("the browsable API's form has the version's fields", async () => {
    const page = async (version: string) => {
      const res = await app.inject({ method: 'GET', url: `/${version}/tasks/`, headers: { accept: 'text/html' } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      return res.body;
    };
    const v1 = await page('v1');
    expect(v1).toContain('name="name"');
    expect(v1).not.toContain('name="owner"');
    const v2 = await page('v2');
    expect(v2).toContain('name="title"');
    expect(v2).toContain('name="owner"');
    expect(v2).not.toContain('name="name"');
  });

  it('OpenAPI offers each version\'s request, response and 400 shapes', () => {
    const op = generateOpenAPI(app).paths['/{version}/tasks/']!.post!;
    const body = op.requestBody as { content: Record<string, { schema: unknown }> };
    expect(body.content['application/json']!.schema).toEqual({ oneOf: [{ $ref: '#/components/schemas/TaskV2Request' }, { $ref: '#/components/schemas/TaskV1Request' }] });
    const content = (r: string) => (op.responses[r] as { content: Record<string, { schema: unknown }> }).content['application/json']!.schema;
    expect(content('201')).toEqual({ oneOf: [{ $ref: '#/components/schemas/TaskV2' }, { $ref: '#/components/schemas/TaskV1' }] });
    expect(content('400')).toEqual({ oneOf: [{ $ref: '#/components/schemas/TaskV2ValidationError' }, { $ref: '#/components/schemas/TaskV1ValidationError' }] });
  });
});
