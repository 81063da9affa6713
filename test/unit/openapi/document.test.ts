import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { validateRequest, validateResponse } from '../../../src/index.js';
import { serviceDocument, serviceDocumentUrl } from '../../../src/spec/loadDocument.js';
import { operations } from '../../../src/spec/operations.js';

type Examples = Record<string, { value: unknown }>;
interface Media {
  examples?: Examples;
}

describe('openapi/user-group-service.yaml', () => {
  it('is a valid OpenAPI 3.1 document with the 2020-12 dialect', async () => {
    const api = await SwaggerParser.validate(serviceDocumentUrl.pathname);
    expect(api).toMatchObject({
      openapi: '3.1.0',
      jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    });
  });

  it('describes the three operations on /api/user, told apart by method', () => {
    expect(operations().map((o) => `${o.method} ${o.path} ${o.operationId}`)).toEqual([
      'GET /api/user getOrCreateUserGroup',
      'PUT /api/user updateUserGroup',
      'POST /api/user rotateUserGroupToken',
    ]);
  });

  const paths = serviceDocument().paths ?? {};
  const requestExamples = Object.entries(paths['/api/user'] ?? {}).flatMap(([method, operation]) =>
    Object.entries(
      ((operation as { requestBody?: { content: Record<string, Media> } }).requestBody?.content?.[
        'application/json'
      ]?.examples ?? {}) as Examples,
    ).map(([name, example]) => ({ method: method.toUpperCase(), name, body: example.value })),
  );

  it.each(requestExamples)(
    'has a $method request example "$name" that the validator accepts',
    ({ method, body }) => {
      const headers = { authorization: 'Token k', 'content-type': 'application/json' };
      expect(validateRequest({ method, path: '/api/user', headers, body }).diagnostics).toEqual([]);
    },
  );

  const document = serviceDocument();
  const responseExamples = Object.entries(paths['/api/user'] ?? {}).flatMap(([method, operation]) =>
    Object.entries(
      (operation as { responses: Record<string, { $ref?: string; content?: Record<string, Media> }> })
        .responses,
    ).flatMap(([status, response]) => {
      const resolved =
        response.$ref === undefined
          ? response
          : (document.components?.responses?.[response.$ref.split('/').at(-1) ?? ''] as typeof response);
      return Object.entries(resolved?.content?.['application/json']?.examples ?? {}).map(
        ([name, example]) => ({
          method: method.toUpperCase(),
          status: Number(status),
          name,
          body: example.value,
        }),
      );
    }),
  );

  it('has response examples for every success and some errors', () => {
    expect(responseExamples.filter((e) => e.status === 200).map((e) => e.method)).toEqual(
      expect.arrayContaining(['GET', 'PUT', 'POST']),
    );
    expect(responseExamples.some((e) => e.status >= 400)).toBe(true);
  });

  it.each(responseExamples)(
    'has a $method $status example "$name" that the validator accepts',
    ({ method, status, body }) => {
      expect(validateResponse({ method, path: '/api/user', status, body }).diagnostics).toEqual([]);
    },
  );
});
