import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CommonPasswordValidator,
  MinimumLengthValidator,
  NumericPasswordValidator,
  UserAttributeSimilarityValidator,
  defaultSettings,
  validatePassword,
} from '../../src/index.js';
import { quickRatio } from '../../src/users/password-validation.js';
import { main } from '../../src/cli/main.js';

const DEFAULTS = defaultSettings().AUTH_PASSWORD_VALIDATORS;

describe("Django's password validators", () => {
  it('"1" is too short and entirely numeric, in the order of AUTH_PASSWORD_VALIDATORS', () => {
    expect(validatePassword('1', { username: 'alice' }, DEFAULTS)).toEqual([
      'This password is too short. It must contain at least 8 characters.',
      'This password is entirely numeric.',
    ]);
  });

  it('a common password is refused whatever its case and surrounding spaces', () => {
    expect(validatePassword(' PassWord ', { username: 'alice' }, DEFAULTS)).toEqual(['This password is too common.']);
    expect(new CommonPasswordValidator().validate('iloveyou')).toEqual(['This password is too common.']);
    expect(new CommonPasswordValidator().validate('correct horse battery staple 71')).toEqual([]);
  });

  it('similar to the username or a part of the e-mail address', () => {
    const v = new UserAttributeSimilarityValidator();
    expect(v.validate('alice1234', { username: 'alice1234' })).toEqual(['The password is too similar to the username.']);
    expect(v.validate('jsmith-99', { username: 'x', email: 'j.smith@example.com' })).toEqual(['The password is too similar to the email address.']);
    expect(v.validate('examplecom', { username: 'x', email: 'jo@example.com' })).toEqual(['The password is too similar to the email address.']);
    expect(v.validate('Tr0ub4dor&3', { username: 'alice', email: 'alice@example.com' })).toEqual([]);
    // Ten times longer than a short value: never "similar" (Django's length ratio rule).
    expect(v.validate('a'.repeat(30) + 'bob', { username: 'bob' })).toEqual([]);
  });

  it('quickRatio is Python\'s SequenceMatcher.quick_ratio()', () => {
    expect(quickRatio('abcd', 'bcde')).toBe(0.75);
    expect(quickRatio('', '')).toBe(1);
    expect(quickRatio('aab', 'ab')).toBeCloseTo(0.8);
  });

  it('minimum length is configurable and counts characters, not UTF-16 units', () => {
    expect(new MinimumLengthValidator(1).validate('')).toEqual(['This password is too short. It must contain at least 1 character.']);
    expect(new MinimumLengthValidator(3).validate('😀😀😀')).toEqual([]);
    expect(new NumericPasswordValidator().validate('12345678a')).toEqual([]);
  });
});

describe('the CLI applies AUTH_PASSWORD_VALIDATORS', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'trestle-pw-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function trestle(argv: string[], input = '', env: Record<string, string> = {}) {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    stdin.end(input);
    const code = await main(argv, { stdin, stdout, stderr }, dir, { DATABASE_URL: `sqlite:${join(dir, 'db.sqlite3')}`, ...env });
    return { code, stdout: out, stderr: err };
  }

  it('createsuperuser refuses "1" with every problem on one line, and creates no user', async () => {
    expect((await trestle(['migrate'])).code).toBe(0);
    const weak = await trestle(['createsuperuser', '--username', 'admin', '--email', '', '--password-stdin'], '1\n');
    expect(weak.code).toBe(1);
    expect(weak.stdout).toBe('');
    expect(weak.stderr).toBe(
      'trestle createsuperuser: This password is too short. It must contain at least 8 characters. This password is entirely numeric.\n',
    );
    const env = await trestle(['createsuperuser', '--no-input', '--username', 'ops'], '', { TRESTLE_SUPERUSER_PASSWORD: 'password' });
    expect(env.code).toBe(1);
    expect(env.stderr).toBe('trestle createsuperuser: This password is too common.\n');
    const ok = await trestle(['createsuperuser', '--username', 'admin', '--email', '', '--password-stdin'], 'Tr0ub4dor&3\n');
    expect(ok.code, ok.stderr).toBe(0);
  });

  it('changepassword refuses a password too like the username', async () => {
    expect((await trestle(['migrate'])).code).toBe(0);
    expect((await trestle(['createsuperuser', '--username', 'rosalind', '--email', '', '--password-stdin'], 'Tr0ub4dor&3\n')).code).toBe(0);
    const similar = await trestle(['changepassword', 'rosalind', '--password-stdin'], 'Rosalind!\n');
    expect(similar.code).toBe(1);
    expect(similar.stderr).toBe('trestle changepassword: The password is too similar to the username.\n');
  });
});
