import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateRequest, validateResponse } from '../../../src/index.js';
import { parseJsonBody } from '../../../src/validate/jsonText.js';
import { inspectJsonValue } from '../../../src/validate/jsonValue.js';

const headers = { authorization: 'Token k', 'content-type': 'application/json' };

function nested(depth: number): unknown {
  let value: unknown = { leaf: true };
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

const cyclic: Record<string, unknown> = { name: 'A' };
cyclic.user_group_id = cyclic;

/** `"k<from>":0,...` up to (not including) `to`. */
function keysFrom(from: number, to: number): string {
  return Array.from({ length: to - from }, (_, i) => `"k${from + i}":0`).join(',');
}

const hostileBodies: Array<[string, unknown, string]> = [
  ['a string that is not JSON', 'not json', 'BODY_INVALID_JSON'],
  ['null', null, 'BODY_NOT_OBJECT'],
  ['a number', 42, 'BODY_NOT_OBJECT'],
  ['10,000-deep nesting', { name: 'A', user_group_id: 'a', properties: nested(10_000) }, 'BODY_TOO_DEEP'],
  ['10,000-deep nesting as text', `${'['.repeat(10_000)}${']'.repeat(10_000)}`, 'BODY_TOO_DEEP'],
  [
    'an own __proto__ key',
    JSON.parse('{"name":"A","user_group_id":"a","__proto__":{"admin":true}}'),
    'BODY_FORBIDDEN_KEY',
  ],
  [
    'constructor.prototype',
    { name: 'A', user_group_id: 'a', properties: { constructor: { prototype: {} } } },
    'BODY_FORBIDDEN_KEY',
  ],
  ['a cycle', cyclic, 'BODY_TOO_DEEP'],
  ['a BigInt', { name: 'A', user_group_id: 10n }, 'BODY_INVALID_JSON'],
  ['a function', { name: 'A', user_group_id: () => 1 }, 'BODY_INVALID_JSON'],
  ['a Date', { name: 'A', user_group_id: new Date(0) }, 'BODY_INVALID_JSON'],
  [
    'Infinity',
    { name: 'A', user_group_id: 'a', properties: { n: Number.POSITIVE_INFINITY } },
    'BODY_NUMBER_OUT_OF_RANGE',
  ],
  ['a lone surrogate', { name: '\ud800', user_group_id: 'a' }, 'BODY_INVALID_ENCODING'],
  ['bytes that are not UTF-8', new Uint8Array([0x7b, 0xff, 0x7d]), 'BODY_INVALID_ENCODING'],
  ['a byte order mark', new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), 'BODY_INVALID_ENCODING'],
  ['a duplicate key', '{"name":"A","user_group_id":"a","name":"B"}', 'BODY_DUPLICATE_KEY'],
  [
    'a duplicate key spelled with an escape',
    '{"name":"A","user_group_id":"a","n\\u0061me":"B"}',
    'BODY_DUPLICATE_KEY',
  ],
  [
    'a key repeated far apart among many',
    `{"name":"A","user_group_id":"a","properties":{${keysFrom(0, 40)},"k3":0}}`,
    'BODY_DUPLICATE_KEY',
  ],
];

describe('the validators on hostile input', () => {
  it('tell distinct keys apart in an object with thousands of them', () => {
    const body = `{"name":"A","user_group_id":"a","properties":{${keysFrom(0, 5_000)}}}`;
    expect(validateRequest({ method: 'GET', path: '/api/user', headers, body }).diagnostics).toEqual([]);
  });

  it.each([
    ['at the top level', '{"name":"A","user_group_id":"a","name":"B"}', '/body/name'],
    ['spelled with an escape', '{"name":"A","user_group_id":"a","n\\u0061me":"B"}', '/body/name'],
    ['in properties', '{"name":"A","user_group_id":"a","properties":{"k":1,"k":2}}', '/body/properties/k'],
    [
      'in an object in an array, after strings with commas and brackets',
      '{"name":"A,[{","user_group_id":"a","properties":{"l":[{"x":"}]"},{"y/~":1,"y/~":2}]}}',
      '/body/properties/l/1/y~1~0',
    ],
  ])('point at a key repeated %s', (_where, body, path) => {
    const result = validateRequest({ method: 'GET', path: '/api/user', headers, body });
    expect(result.diagnostics).toContainEqual(expect.objectContaining({ code: 'BODY_DUPLICATE_KEY', path }));
  });

  it.each(hostileBodies)('return a diagnostic, never throw, for %s', (_name, body, code) => {
    const result = validateRequest({ method: 'GET', path: '/api/user', headers, body });
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((d) => d.code)).toContain(code);
  });

  it.each([
    [
      'a forbidden key',
      '{"name":"A","user_group_id":"a","properties":{"constructor":{}}}',
      'BODY_FORBIDDEN_KEY',
    ],
    [
      'an integer literal beyond 2^53 - 1 (a warning)',
      '{"name":"A","user_group_id":"a","properties":{"n":9007199254740993}}',
      'IMPRECISE_INTEGER',
    ],
    [
      'a number beyond a double',
      '{"name":"A","user_group_id":"a","properties":{"n":-1e400}}',
      'BODY_NUMBER_OUT_OF_RANGE',
    ],
    ['a lone surrogate in a value', '{"name":"A\\ud800","user_group_id":"a"}', 'BODY_INVALID_ENCODING'],
    [
      'a lone surrogate in a key',
      '{"name":"A","user_group_id":"a","properties":{"\\udc00":"x"}}',
      'BODY_INVALID_ENCODING',
    ],
  ])('find %s in JSON text, which the text scan must not call clean', (_name, body, code) => {
    expect(parseJsonBody(body)).toMatchObject({ ok: true, value: { clean: false } });
    const result = validateRequest({ method: 'GET', path: '/api/user', headers, body });
    expect([...result.diagnostics, ...result.warnings].map((d) => d.code)).toContain(code);
  });

  it('call JSON text clean only when its value passes the value inspection', () => {
    const surrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
    const text = fc.oneof(fc.string(), fc.string({ unit: surrogate, minLength: 1, maxLength: 2 }));
    const key = fc.oneof(text, fc.constantFrom('__proto__', 'constructor', 'prototype', '\ud800'));
    const value = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.constantFrom(true, false, null, 0, -1, 1.5, 2 ** 53 + 2, '\udfff'),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(key, tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    fc.assert(
      fc.property(value, fc.boolean(), (generated, raw) => {
        // Strings go into the text raw (a lone surrogate as itself, as a caller's string may hold it) or escaped;
        // '\\u' in a generated string becomes an escape once the text is unescaped.
        const json = raw ? rawJson(generated) : JSON.stringify(generated).replaceAll('\\\\u', '\\u');
        const parsed = parseJsonBody(json);
        if (parsed.ok && parsed.value.clean) expect(inspectJsonValue(parsed.value.value)).toEqual([]);
      }),
      { numRuns: 2_000 },
    );
  });

  it.each([
    ['a value', '{"name":"A\ud800","user_group_id":"a"}', '/body/name'],
    ['a property', '{"name":"A","user_group_id":"a","properties":{"k":"\udfff"}}', '/body/properties/k'],
    ['a key', '{"name":"A","user_group_id":"a","properties":{"\udc00":1}}', '/body/properties/\udc00'],
  ])('refuse a raw lone surrogate in %s of JSON text given as a string', (_name, body, path) => {
    expect(body.isWellFormed()).toBe(false);
    const result = validateRequest({ method: 'GET', path: '/api/user', headers, body });
    expect(result.diagnostics).toEqual([expect.objectContaining({ code: 'BODY_INVALID_ENCODING', path })]);
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a string', 'GET /api/user'],
    ['an object without fields', {}],
    [
      'headers that are a string',
      { method: 'GET', path: '/api/user', headers: 'authorization: Token k', body: {} },
    ],
    ['a path that is a number', { method: 'GET', path: 42, body: {} }],
  ])('never throw when the request itself is %s', (_name, request) => {
    expect(() => validateRequest(request as never)).not.toThrow();
    expect(validateRequest(request as never).ok).toBe(false);
    expect(() => validateResponse(request as never)).not.toThrow();
    expect(validateResponse(request as never).ok).toBe(false);
  });
});

/** JSON text with every string written raw: only quotes, backslashes and control characters escaped. */
function rawJson(value: unknown): string {
  if (typeof value === 'string')
    return `"${[...value].map((c) => (c === '"' || c === '\\' || c < ' ' ? JSON.stringify(c).slice(1, -1) : c)).join('')}"`;
  if (Array.isArray(value)) return `[${value.map(rawJson).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([key, item]) => `${rawJson(key)}:${rawJson(item)}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}
