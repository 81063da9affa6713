import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { adminDocumentUrl, parseYaml, serviceDocumentUrl } from '../../../src/spec/loadDocument.js';
import { admin, service, useMocks } from '../../support/admin.js';
import { call } from '../../support/http.js';

const start = useMocks();
const adminKey = 'ci-admin-secret';
const authored = (url: URL): string => readFileSync(url, 'utf8');
const builtServiceJson = new URL('../../../dist/openapi/user-group-service.json', import.meta.url);

/** Every `$ref` in a document. */
function refsOf(node: unknown): string[] {
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === '$ref' && typeof value === 'string' ? [value] : refsOf(value),
  );
}

describe('the documents served by the running mock', () => {
  it('serves the service document at /openapi.yaml as authored and at /openapi.json as built', async () => {
    const mock = await start();
    const yaml = await call(mock.url, 'GET', '/openapi.yaml', { headers: {} });
    expect(yaml.status).toBe(200);
    expect(yaml.headers['content-type']).toBe('application/yaml; charset=utf-8');
    expect(yaml.body).toBe(authored(serviceDocumentUrl));
    const json = await admin(mock.url, 'GET', '/openapi.json');
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json.body).toEqual(parseYaml(yaml.body));
    const text = JSON.stringify(json.body);
    expect(text, 'run "npm run build"').toBe(readFileSync(builtServiceJson, 'utf8'));
  });

  it('serves the admin document at /__admin/openapi.yaml and .json, its service references pointing at /openapi.json', async () => {
    const mock = await start();
    const yaml = await call(mock.url, 'GET', '/__admin/openapi.yaml', { headers: {} });
    expect(yaml.status).toBe(200);
    expect(yaml.headers['content-type']).toBe('application/yaml; charset=utf-8');
    const json = await admin(mock.url, 'GET', '/__admin/openapi.json');
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json.body).toEqual(parseYaml(yaml.body));
    const source = authored(adminDocumentUrl);
    expect(yaml.body).toBe(source.replaceAll('"user-group-service.yaml#', '"../openapi.json#'));
    const refs = refsOf(json.body);
    expect(refs.filter((ref) => ref.startsWith('../openapi.json#')).length).toBeGreaterThan(5);
    expect(refs.filter((ref) => !ref.startsWith('#') && !ref.startsWith('../openapi.json#'))).toEqual([]);
  });

  it.each(['/openapi.json', '/openapi.yaml', '/__admin/openapi.json', '/__admin/openapi.yaml'])(
    'is a valid OpenAPI document at %s for a tool given its URL alone, references resolved through the mock',
    async (path) => {
      const mock = await start();
      // The mock listens on loopback, which the parser refuses to fetch unless told (a guard against SSRF).
      const api = await SwaggerParser.validate(`${mock.url}${path}`, {
        resolve: { http: { safeUrlResolver: false } },
      });
      expect(api).toMatchObject({ openapi: '3.1.0' });
    },
  );

  it('serves /openapi.* without the admin key and whatever Authorization says; /__admin/openapi.* needs the key', async () => {
    const mock = await start({ adminKey });
    const variants: Record<string, string>[] = [
      {},
      { authorization: 'Bearer not-a-key' },
      { authorization: 'Token unknown' },
    ];
    for (const headers of variants) {
      expect((await call(mock.url, 'GET', '/openapi.yaml', { headers })).status).toBe(200);
      expect((await admin(mock.url, 'GET', '/openapi.json', { headers })).status).toBe(200);
    }
    for (const path of ['/__admin/openapi.json', '/__admin/openapi.yaml']) {
      const refused = await call(mock.url, 'GET', path, { headers: {} });
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('ADMIN_KEY_REQUIRED');
      const headers = { 'x-admin-key': adminKey, authorization: 'Token unknown' };
      expect((await call(mock.url, 'GET', path, { headers })).status).toBe(200);
    }
  });

  it('answers another method on /openapi.json with 405 and Allow: GET, even without the admin key', async () => {
    const mock = await start({ adminKey });
    const answer = await admin(mock.url, 'POST', '/openapi.json');
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('GET');
    expect(answer.body.error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('refuses a query parameter the document does not declare', async () => {
    const mock = await start();
    const answer = await admin(mock.url, 'GET', '/openapi.json?format=yaml');
    expect(answer.status).toBe(400);
    expect(answer.body.error.details).toMatchObject([{ code: 'UNKNOWN_FIELD', path: '/query/format' }]);
  });

  it('leaves the journal and the service’s routing as they were', async () => {
    const mock = await start();
    await call(mock.url, 'GET', '/openapi.json', { headers: {} });
    await call(mock.url, 'GET', '/__admin/openapi.yaml', { headers: {} });
    expect((await admin(mock.url, 'GET', '/__admin/requests')).body).toEqual([]);
    expect((await service(mock, 'GET', { name: 'A', user_group_id: 'a' })).status).toBe(200);
    const unknown = await call(mock.url, 'GET', '/openapi.txt', { headers: {} });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('ROUTE_NOT_FOUND');
    expect((await admin(mock.url, 'GET', '/__admin/requests')).body).toHaveLength(2);
  });
});

describe('the documents and health served by the built package', () => {
  it('are read from the package’s own files wherever it runs', () => {
    // A plain Node process importing the package by its name, as an installed user does (its `exports` lead to dist/).
    const script = `
      import { createMockServer } from 'user-group-mock';
      const mock = await createMockServer();
      const get = async (path) => {
        const response = await fetch(mock.url + path);
        return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
      };
      const answers = {};
      for (const path of ['/openapi.json', '/openapi.yaml', '/__admin/openapi.json', '/__admin/openapi.yaml', '/__admin/health'])
        answers[path] = await get(path);
      await mock.close();
      console.log(JSON.stringify(answers));
    `;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: new URL('../../../', import.meta.url),
      encoding: 'utf8',
    });
    const answers = JSON.parse(output) as Record<string, { status: number; type: string; text: string }>;
    for (const answer of Object.values(answers)) expect(answer.status).toBe(200);
    expect(answers['/openapi.yaml']?.text).toBe(authored(serviceDocumentUrl));
    expect(answers['/openapi.json']?.text).toBe(readFileSync(builtServiceJson, 'utf8'));
    expect(JSON.parse(answers['/__admin/openapi.json']?.text ?? '')).toEqual(
      parseYaml(answers['/__admin/openapi.yaml']?.text ?? ''),
    );
    const { version } = JSON.parse(authored(new URL('../../../package.json', import.meta.url)));
    expect(JSON.parse(answers['/__admin/health']?.text ?? '')).toEqual({
      status: 'ready',
      version,
      store: 'memory',
    });
  });
});
