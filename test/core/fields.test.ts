import { describe, expect, it } from 'vitest';
import { ApiRequest, CreateAPIView, boolean, choice, createApp, email, fields, integer, path, string } from '../../src/index.js';

const BookInput = fields({
  title: string({ maxLength: 10 }),
  year: integer({ minValue: 0, maxValue: 3000, required: false }),
  inPrint: boolean({ default: true }),
  format: choice(['paper', 'ebook'] as const, { required: false }),
  contact: email({ required: false }),
});

class BookCreate extends CreateAPIView {
  override authenticationClasses = [];
  override serializer = BookInput;
  override performCreate(_req: ApiRequest, data: Record<string, unknown>) {
    return { id: 1, ...data };
  }
  // Echo what was validated, defaults included.
  override serialize(item: unknown) {
    return item;
  }
}

async function post(payload: unknown) {
  const app = await createApp({ logger: false, routes: [path('books/', BookCreate)] });
  return app.inject({ method: 'POST', url: '/books/', payload: JSON.stringify(payload), headers: { 'content-type': 'application/json' } });
}

describe('field validation with DRF messages', () => {
  it('valid input is converted and defaults applied', async () => {
    const res = await post({ title: ' Dune ', year: '1965' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ id: 1, title: 'Dune', year: 1965, inPrint: true });
  });

  it('missing, blank, null and wrong types give a field map of DRF messages', async () => {
    const res = await post({ title: '', year: 'x', inPrint: null, format: 'scroll', contact: 'nope' });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({
      title: ['This field may not be blank.'],
      year: ['A valid integer is required.'],
      inPrint: ['This field may not be null.'],
      format: ['"scroll" is not a valid choice.'],
      contact: ['Enter a valid email address.'],
    });
    const missing = await post({});
    expect(missing.json()).toEqual({ title: ['This field is required.'] });
  });

  it('limits are checked with DRF wording', async () => {
    const res = await post({ title: 'A very long title', year: -1 });
    expect(res.json()).toEqual({
      title: ['Ensure this field has no more than 10 characters.'],
      year: ['Ensure this value is greater than or equal to 0.'],
    });
  });

  it('a null body, NUL characters and lone surrogates are refused as DRF does', async () => {
    expect((await post(null)).json()).toEqual({ non_field_errors: ['No data provided'] });
    expect((await post({ title: 'a\u0000b' })).json()).toEqual({ title: ['Null characters are not allowed.'] });
    expect((await post({ title: 'a\ud800b' })).json()).toEqual({ title: ['Surrogate characters are not allowed: U+D800.'] });
  });

  it("a string field takes a JSON number as Python's str() of it (1e999 is 'inf'); booleans and objects are refused", async () => {
    const app = await createApp({ logger: false, routes: [path('books/', BookCreate)] });
    const raw = (payload: string) => app.inject({ method: 'POST', url: '/books/', payload, headers: { 'content-type': 'application/json' } });
    for (const [sent, stored] of [['1e999', 'inf'], ['-1e999', '-inf'], ['42', '42'], ['0.00001', '1e-05'], ['2.5', '2.5']] as const) {
      const res = await raw(`{"title": ${sent}}`);
      expect(res.statusCode).toBe(201);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.json()).toEqual({ id: 1, title: stored, inPrint: true });
    }
    expect((await raw('{"title": true}')).json()).toEqual({ title: ['Not a valid string.'] });
    expect((await raw('{"title": {"a": 1}}')).json()).toEqual({ title: ['Not a valid string.'] });
    await app.close();
  });

  it('partial validation skips missing fields', async () => {
    expect(await BookInput.validate({ year: 2000 }, { partial: true })).toEqual({ year: 2000 });
  });

  it('OPTIONS describes the accepted fields under actions, as DRF\'s metadata', async () => {
    const app = await createApp({ logger: false, routes: [path('books/', BookCreate)] });
    const res = await app.inject({ method: 'OPTIONS', url: '/books/' });
    expect(res.statusCode).toBe(200);
    expect(res.json().actions).toEqual({
      POST: {
        title: { type: 'string', required: true, read_only: false, label: 'Title', max_length: 10 },
        year: { type: 'integer', required: false, read_only: false, label: 'Year', min_value: 0, max_value: 3000 },
        inPrint: { type: 'boolean', required: false, read_only: false, label: 'InPrint' },
        format: {
          type: 'choice',
          required: false,
          read_only: false,
          label: 'Format',
          choices: [
            { value: 'paper', display_name: 'paper' },
            { value: 'ebook', display_name: 'ebook' },
          ],
        },
        contact: { type: 'email', required: false, read_only: false, label: 'Contact' },
      },
    });
  });
});
