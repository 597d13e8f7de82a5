import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { main } from '../../src/cli/main.js';
import { createCommandContext } from '../../src/cli/context.js';
import { openapiCommand } from '../../src/cli/commands/openapi.js';
import type { CommandArgs } from '../../src/cli/command.js';
import { createApp } from '../../src/index.js';
import { routes } from './fixtures.js';
import project from './trestle.config.js';

/**
 * Runs the command with the project already imported: a config loaded
 * through tsx's `tsImport` gets its own copy of the framework's modules, so
 * it is imported here directly (see the report on the project loader).
 */
async function runOpenapi(values: CommandArgs['values']): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const base = createCommandContext({ stdin: new PassThrough(), stdout, stderr }, {}, process.cwd(), {});
  const ctx = { ...base, project: async () => ({ config: project, path: null }) };
  try {
    const code = await openapiCommand.run(ctx, { values, positionals: [] });
    return { code, stdout: out, stderr: err };
  } finally {
    await base.close();
  }
}

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await main(argv, { stdin: new PassThrough(), stdout, stderr }, process.cwd(), {});
  return { code, stdout: out, stderr: err };
}

describe('trestle openapi', () => {
  it('prints the document GET /openapi.json serves, with the SchemaView title', async () => {
    const { code, stdout, stderr } = await runOpenapi({});
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const printed = JSON.parse(stdout);
    const app = await createApp({ logger: false, routes });
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    await app.close();
    expect(res.statusCode).toBe(200);
    expect(printed).toEqual(res.json());
    expect(printed.info).toEqual({ title: 'Test API', version: '3.2.1' });
    expect((await new Validator().validate(printed)).valid).toBe(true);
  });

  it('--title and --api-version override the info block', async () => {
    const { code, stdout } = await runOpenapi({ title: 'Other', 'api-version': '9', compact: true });
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(stdout).info).toEqual({ title: 'Other', version: '9' });
  });

  it('is listed by trestle help', async () => {
    const { code, stdout } = await run(['help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/openapi\s+Print the OpenAPI 3\.1 document/);
  });
});
