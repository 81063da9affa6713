import { describe, expect, it } from 'vitest';
import { type Diagnostic, validateRequest } from '../../../src/index.js';
import { call, customerKey, useMocks } from '../../support/http.js';

/**
 * One table of requests, each sent to `validateRequest` and to a running mock: both run the same pipeline steps,
 * so both must name the same problems (code and path) and the same warnings.
 */
interface Row {
  readonly name: string;
  readonly method: string;
  readonly path?: string;
  readonly headers: Record<string, string>;
  /** The body as sent, or none. */
  readonly raw?: string;
}

const json = { authorization: `Token ${customerKey}`, 'content-type': 'application/json' };
const group = (fields: string): string => `{"user_group_id":"g-1","name":"Group"${fields}}`;
const nested = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

const rows: readonly Row[] = [
  { name: 'a good get-or-create', method: 'GET', headers: json, raw: group('') },
  {
    name: 'no Authorization',
    method: 'GET',
    headers: { 'content-type': 'application/json' },
    raw: group(''),
  },
  {
    name: 'Bearer instead of Token',
    method: 'GET',
    headers: { ...json, authorization: `Bearer ${customerKey}` },
    raw: group(''),
  },
  {
    name: 'a wrong content type',
    method: 'GET',
    headers: { ...json, 'content-type': 'text/plain' },
    raw: group(''),
  },
  {
    name: 'a compressed body sent as text',
    method: 'GET',
    headers: { ...json, 'content-type': 'text/plain', 'content-encoding': 'gzip' },
    raw: group(''),
  },
  { name: 'no body', method: 'GET', headers: json },
  { name: 'invalid JSON', method: 'GET', headers: json, raw: '{"user_group_id": "g-1",' },
  {
    name: 'a duplicate key',
    method: 'GET',
    headers: json,
    raw: '{"user_group_id":"a","user_group_id":"b","name":"G"}',
  },
  {
    name: 'a lone surrogate escaped in the text',
    method: 'GET',
    headers: json,
    raw: '{"user_group_id":"g-\\ud800","name":"Group"}',
  },
  {
    name: 'a body nested too deeply',
    method: 'GET',
    headers: json,
    raw: group(`,"properties":${nested(40)}`),
  },
  {
    name: 'a forbidden key',
    method: 'GET',
    headers: json,
    raw: group(',"properties":{"__proto__":{"x":1}}'),
  },
  { name: 'an array body', method: 'GET', headers: json, raw: '[1,2]' },
  { name: 'an unknown field', method: 'GET', headers: json, raw: group(',"userGroupId":"x"') },
  {
    name: 'a required field spelt another way',
    method: 'GET',
    headers: json,
    raw: '{"name":"Shop","userGroupId":"shop-1"}',
  },
  {
    name: 'a field only answers carry',
    method: 'GET',
    headers: json,
    raw: group(',"api_environment_tag":"Customer"'),
  },
  { name: 'a get-or-create body sent with POST', method: 'POST', headers: json, raw: group('') },
  { name: 'a method the path does not have', method: 'DELETE', headers: json, raw: group('') },
  {
    name: 'a path the service does not have',
    method: 'GET',
    path: '/api/users',
    headers: json,
    raw: group(''),
  },
  {
    name: 'a body field sent in the query string',
    method: 'GET',
    path: '/api/user?user_group_id=g-1',
    headers: json,
    raw: group(''),
  },
  { name: 'an update with a name and no id', method: 'PUT', headers: json, raw: '{"name":"n"}' },
  {
    name: 'fields wrapped in an object',
    method: 'GET',
    headers: json,
    raw: '{"user_group":{"name":"n","user_group_id":"x1"}}',
  },
  {
    name: 'an empty parameter in the content type',
    method: 'GET',
    headers: { ...json, 'content-type': 'application/json;' },
    raw: group(''),
  },
  {
    name: 'an integer beyond 2^53 where a string belongs (no warning)',
    method: 'GET',
    headers: json,
    raw: '{"user_group_id":12345678901234567,"name":"n"}',
  },
  {
    name: 'an integer beyond 2^53 (a warning)',
    method: 'GET',
    headers: json,
    raw: group(',"properties":{"n":9007199254740993}'),
  },
];

const named = (diagnostics: readonly Diagnostic[]) => diagnostics.map(({ code, path }) => ({ code, path }));

describe('the pipeline', () => {
  const mock = useMocks();

  it.each(rows)('finds the same problems in $name through validateRequest and the server', async (row) => {
    const server = await mock();
    const path = row.path ?? '/api/user';
    const library = validateRequest({ method: row.method, path, headers: row.headers, body: row.raw });
    const answer = await call(server.url, row.method, path, {
      headers: row.headers,
      ...(row.raw === undefined ? {} : { raw: row.raw }),
    });
    const [entry] = await server.requests();
    expect(entry).toBeDefined();
    expect(named(entry?.diagnostics ?? [])).toEqual(named(library.diagnostics));
    expect(named(entry?.warnings ?? [])).toEqual(named(library.warnings));
    if (library.ok) expect(answer.status).toBe(200);
    else expect(named(answer.body.error.details)).toEqual(named(library.diagnostics));
  });

  it('covers good and bad requests, and a warning', () => {
    const results = rows.map((row) =>
      validateRequest({
        method: row.method,
        path: row.path ?? '/api/user',
        headers: row.headers,
        body: row.raw,
      }),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(3);
    expect(results.filter((r) => r.warnings.length > 0)).toHaveLength(1);
    expect(new Set(results.flatMap((r) => r.diagnostics.map((d) => d.code))).size).toBeGreaterThanOrEqual(12);
  });
});
