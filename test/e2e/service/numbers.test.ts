import { Validator } from '@cfworker/json-schema';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateRequest } from '../../../src/index.js';
import { arbitraryFor } from '../../support/arbitraries.js';
import { call, jsonHeaders, methodOf, type OperationName, useMocks } from '../../support/http.js';
import { requestSchema } from '../../support/schemas.js';

const startMock = useMocks();
const headers = jsonHeaders('k');
const operationNames = Object.keys(methodOf) as OperationName[];

/**
 * A second, independent JSON Schema 2020-12 implementation (@cfworker/json-schema), so that "the schema accepts
 * it" is not judged by the project's own Ajv set-up.
 */
const independent = Object.fromEntries(
  operationNames.map((name) => [name, new Validator(requestSchema(name) as object, '2020-12', false)]),
) as Record<OperationName, Validator>;

/** How a number may be written in JSON text: as JSON.stringify does, in exponent form, or as all its digits. */
type NumberForm = 'shortest' | 'exponent' | 'upper-exponent' | 'digits';
const numberText = (n: number, form: NumberForm): string => {
  if (form === 'exponent') return n.toExponential();
  if (form === 'upper-exponent') return n.toExponential().toUpperCase().replace('E+', 'E');
  if (form === 'digits' && Number.isInteger(n)) return BigInt(n).toString();
  return JSON.stringify(n);
};

/** JSON text of a value, each number written in one of the forms (chosen by `pick`). */
function jsonText(value: unknown, pick: () => NumberForm): string {
  if (typeof value === 'number') return numberText(value, pick());
  if (Array.isArray(value)) return `[${value.map((item) => jsonText(item, pick)).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${jsonText(item, pick)}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

const forms = fc.array(fc.constantFrom<NumberForm>('shortest', 'exponent', 'upper-exponent', 'digits'), {
  minLength: 1,
  maxLength: 8,
});

/** A body the schemas allow, as JSON text with numbers in any legal form. */
const schemaValidText = fc
  .constantFrom(...operationNames)
  .chain((operation) =>
    fc.record({
      operation: fc.constant(operation),
      body: arbitraryFor(requestSchema(operation)),
      forms,
    }),
  )
  .map(({ operation, body, forms: chosen }) => {
    let i = 0;
    return { operation, text: jsonText(body, () => chosen[i++ % chosen.length] as NumberForm) };
  })
  .filter(({ operation, text }) => independent[operation].validate(JSON.parse(text)).valid);

describe('numbers in request bodies', () => {
  it.each([
    ['1e300', 'an ordinary double in exponent form'],
    ['1.29020780431846e+16', 'a double with a fraction written in exponent form'],
    ['-1.7976931348623157e+308', 'the most negative double'],
    ['12345678901234567', 'an integer literal beyond 2^53 - 1'],
    ['2.5e-8', 'a small double'],
  ])('accepts %s (%s), as the schema does', (number) => {
    const body = `{"name":"A","user_group_id":"a","properties":{"x":${number}}}`;
    expect(independent.getOrCreateUserGroup.validate(JSON.parse(body)).valid).toBe(true);
    expect(validateRequest({ method: 'GET', path: '/api/user', headers, body }).diagnostics).toEqual([]);
  });

  it('warns, without refusing, about an integer literal that JavaScript clients round', () => {
    const body = '{"name":"A","user_group_id":"a","properties":{"x":1e300,"id":[12345678901234567]}}';
    const result = validateRequest({ method: 'GET', path: '/api/user', headers, body });
    expect(result.ok).toBe(true);
    expect(result.warnings).toEqual([
      expect.objectContaining({
        code: 'IMPRECISE_INTEGER',
        path: '/body/properties/id/0',
        message: expect.stringMatching(/12345678901234567.*reads it as 12345678901234568.*as a string/),
      }),
    ]);
  });

  it('names each rounded integer literal by its own digits, also when two round to the same double', () => {
    const body =
      '{"name":"A","user_group_id":"a","properties":{"a":12345678901234567,"b":[12345678901234568]}}';
    const result = validateRequest({ method: 'GET', path: '/api/user', headers, body });
    expect(result.warnings.map((w) => [w.path, w.message.match(/the integer (\d+)/)?.[1]])).toEqual([
      ['/body/properties/a', '12345678901234567'],
      ['/body/properties/b/0', '12345678901234568'],
    ]);
  });

  it('refuses a number beyond a double, which cannot be stored, and says why', () => {
    const body = '{"name":"A","user_group_id":"a","properties":{"x":-1e400}}';
    const [diagnostic] = validateRequest({ method: 'GET', path: '/api/user', headers, body }).diagnostics;
    expect(diagnostic).toMatchObject({ code: 'BODY_NUMBER_OUT_OF_RANGE', path: '/body/properties/x' });
    expect(diagnostic?.message).toMatch(/not a finite number.*overflows a double/);
  });

  it('accepts every body that an independent JSON Schema implementation accepts', () => {
    fc.assert(
      fc.property(schemaValidText, ({ operation, text }) => {
        const result = validateRequest({
          method: methodOf[operation],
          path: '/api/user',
          headers,
          body: text,
        });
        expect(result.diagnostics).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('serves every such body without a 400, and says in X-Mock-Notice and the journal when it rounded', async () => {
    const mock = await startMock();
    await fc.assert(
      fc.asyncProperty(schemaValidText, async ({ operation, text }) => {
        const answer = await call(mock.url, methodOf[operation], '/api/user', { raw: text });
        expect(answer.status, `${answer.status} ${JSON.stringify(answer.body)}`).not.toBe(400);
      }),
      { numRuns: 150 },
    );
    const body = '{"name":"A","user_group_id":"big","properties":{"id":12345678901234567}}';
    const answer = await call(mock.url, 'GET', '/api/user', { raw: body });
    expect(answer.status).toBe(200);
    expect(answer.headers['x-mock-notice']).toMatch(/12345678901234567.*12345678901234568/);
    const [entry] = await mock.requests({ limit: 1 });
    expect(entry?.warnings.map((w) => w.code)).toEqual(['IMPRECISE_INTEGER']);
  });
});
