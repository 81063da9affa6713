import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openapiDirectory, parseYaml, serviceDocument } from '../../../src/spec/loadDocument.js';
import { operations } from '../../../src/spec/operations.js';
import { precompiledChecks } from '../../../src/validate/precompiled.js';
import { documentId } from '../../../src/validate/schemaChecks.js';
import { createAjv } from '../../../src/validate/schemas.js';
import { requestFixtures } from '../../support/fixtures.js';

const built = new URL('../../../dist/openapi/', import.meta.url);
const builtChecks = new URL('../../../dist/validate/precompiled.cjs', import.meta.url);
const names = readdirSync(openapiDirectory).filter(
  (name) => name.endsWith('.yaml') && name !== 'redocly.yaml',
);

describe('the documents the build writes to dist/openapi', () => {
  it.each(names)('hold %s exactly (run "npm run build" when this fails)', (name) => {
    const source = parseYaml(readFileSync(new URL(name, openapiDirectory), 'utf8'));
    const json = JSON.parse(readFileSync(new URL(name.replace(/\.yaml$/, '.json'), built), 'utf8'));
    expect(json).toEqual(source);
  });
});

describe('the request checks the build precompiles to dist/validate/precompiled.cjs', () => {
  const document = serviceDocument();
  const precompiled = precompiledChecks(document, builtChecks);
  const pointers = operations().flatMap((operation) => operation.requestSchema ?? []);
  const compiled = createAjv();
  compiled.addSchema(document, documentId);

  it('exist, carry the digest of the current document, and cover every request schema', () => {
    expect(precompiled, 'run "npm run build"').toBeDefined();
    expect([...(precompiled?.keys() ?? [])].sort()).toEqual([...pointers].sort());
  });

  it('report exactly what Ajv compiling at run time reports, for every request fixture', () => {
    const cases = requestFixtures().flatMap((fixture) => {
      const pointer = operations().find((op) => op.operationId === fixture.operationId)?.requestSchema;
      return [...fixture.valid, ...fixture.invalid].map((c) => ({ pointer, body: c.request.body }));
    });
    expect(cases.length).toBeGreaterThan(20);
    for (const { pointer, body } of cases) {
      const value = typeof body === 'string' ? JSON.parse(body) : body;
      const fresh = compiled.getSchema(`${documentId}#${pointer}`);
      const built = precompiled?.get(pointer as string);
      expect(built?.(value)).toBe(fresh?.(value));
      expect(built?.errors ?? null).toEqual(fresh?.errors ?? null);
    }
  });

  it('are ignored when they were compiled from another version of the document', () => {
    const edited = structuredClone(document);
    edited.info.version = `${edited.info.version}-edited`;
    expect(precompiledChecks(edited, builtChecks)).toBeUndefined();
    expect(precompiledChecks(document, new URL('missing.cjs', builtChecks))).toBeUndefined();
  });
});
