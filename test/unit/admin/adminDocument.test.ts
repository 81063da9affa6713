import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import {
  adminDocument,
  adminOperations,
  checkAdminSchema,
  securityOf,
} from '../../../src/admin/adminDocument.js';
import { endpoints } from '../../../src/admin/endpoints.js';
import { adminDocumentUrl, serviceDocument } from '../../../src/spec/loadDocument.js';
import { operations } from '../../../src/spec/operations.js';
import { maxJournalLimit } from '../../../src/store/journal.js';

type Schema = Record<string, unknown>;
interface Envelope {
  description?: string;
  properties: { error: { properties: Record<string, Schema> } };
}
const enumOf = (schema: Schema | undefined): string[] => (schema?.enum ?? []) as string[];
const schemasOf = (document: { components?: { schemas?: Record<string, unknown> } }) =>
  (document.components?.schemas ?? {}) as Record<string, Schema>;

interface Example {
  readonly where: string;
  readonly schema: string;
  readonly value: unknown;
}

/** Every example of a request or response body in admin.yaml, with the pointer of the schema it illustrates. */
function examples(): Example[] {
  const found: Example[] = [];
  const visit = (node: unknown, pointer: string): void => {
    if (node === null || typeof node !== 'object') return;
    const media = node as { schema?: unknown; examples?: Record<string, { value: unknown }> };
    if (pointer.endsWith('/application~1json') && media.examples !== undefined) {
      for (const [name, example] of Object.entries(media.examples))
        found.push({ where: `${pointer} ${name}`, schema: `${pointer}/schema`, value: example.value });
    }
    for (const [key, child] of Object.entries(node))
      visit(child, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
  };
  visit(adminDocument(), '');
  return found;
}

describe('openapi/admin.yaml', () => {
  it('is a valid OpenAPI 3.1 document with the 2020-12 dialect, its $refs into the service document resolving', async () => {
    const api = await SwaggerParser.validate(adminDocumentUrl.pathname);
    expect(api).toMatchObject({
      openapi: '3.1.0',
      jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    });
  });

  it('has a handler for every operation and an operation for every handler', () => {
    expect(
      adminOperations()
        .map((o) => o.operationId)
        .sort(),
    ).toEqual(Object.keys(endpoints).sort());
  });

  it('keeps every path under /__admin/ but the public documents, which anyone may GET, and guards all but the two probes', () => {
    const outside = adminOperations().filter((o) => !o.path.startsWith('/__admin/'));
    expect(outside.map((o) => `${o.method} ${o.path}`).sort()).toEqual([
      'GET /openapi.json',
      'GET /openapi.yaml',
    ]);
    for (const operation of outside) expect(securityOf(operation)).toEqual([[]]);
    const inside = adminOperations().filter((o) => o.path.startsWith('/__admin/'));
    const keyless = inside.filter((o) => !securityOf(o).flat().includes('AdminKey'));
    expect(keyless.map((o) => `${o.method} ${o.path}`).sort()).toEqual([
      'GET /__admin/health/live',
      'GET /__admin/health/ready',
    ]);
    for (const operation of keyless) expect(securityOf(operation)).toEqual([[]]);
  });

  it('lets GET /__admin/requests list as many entries as the largest journal keeps (--journal-limit)', () => {
    const listRequests = adminDocument().paths?.['/__admin/requests']?.get;
    const limit = (
      (listRequests?.parameters ?? []) as Array<{ name: string; schema?: { maximum?: number } }>
    ).find((parameter) => parameter.name === 'limit');
    expect(limit?.schema?.maximum).toBe(maxJournalLimit);
  });

  it('lists exactly the service document’s operationIds as ServiceOperationId', () => {
    expect(schemasOf(adminDocument()).ServiceOperationId?.enum).toEqual(
      operations().map((o) => o.operationId),
    );
  });

  it('uses the service’s error envelope, with only its own codes added, none of them a service code', () => {
    const service = schemasOf(serviceDocument());
    const admin = schemasOf(adminDocument());
    const fieldsOf = (envelope: Schema | undefined) =>
      (envelope as unknown as Envelope).properties.error.properties;
    const withoutCode = (envelope: Schema | undefined): unknown => {
      const copy = structuredClone(envelope) as unknown as Envelope;
      delete copy.description;
      const fields = copy.properties.error.properties;
      fields.code = { replaced: true };
      fields.details = { ...fields.details, items: { replaced: true } };
      return copy;
    };
    expect(withoutCode(admin.ErrorResponse)).toEqual(withoutCode(service.ErrorResponse));
    const fields = fieldsOf(admin.ErrorResponse);
    expect(fields.details?.items).toEqual({ $ref: 'user-group-service.yaml#/components/schemas/Diagnostic' });
    expect(fields.code).toEqual({
      anyOf: [
        { $ref: 'user-group-service.yaml#/components/schemas/ErrorCode' },
        { $ref: '#/components/schemas/ErrorCode' },
      ],
    });
    const serviceCodes = new Set(enumOf(service.ErrorCode));
    expect(enumOf(admin.ErrorCode).length).toBeGreaterThan(0);
    expect(enumOf(admin.ErrorCode).filter((c) => serviceCodes.has(c))).toEqual([]);
  });

  const all = examples();
  it('has examples of requests, successes and errors', () => {
    expect(all.length).toBeGreaterThanOrEqual(8);
  });

  it.each(all)('has an example $where that its schema accepts', ({ schema, value }) => {
    expect(checkAdminSchema(schema, value, '/body')).toEqual([]);
  });
});
