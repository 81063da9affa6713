import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SwaggerMockValidatorFactory, type ValidationResult } from '@pactflow/swagger-mock-validator';
import { describe, expect, it } from 'vitest';
import { publishedContracts } from '../../../src/contract/publishedContract.js';
import { openapiDirectory, parseYaml } from '../../../src/spec/loadDocument.js';
import { useTempDir } from '../../support/tempDir.js';

/*
 * PactFlow's bi-directional contract testing compares a consumer's pact with the provider's OpenAPI document using
 * @pactflow/swagger-mock-validator with its default options. Every published pact must pass against every document
 * that describes its paths, with those defaults: no option is passed here.
 */

interface Pact {
  readonly interactions: readonly { readonly request: { readonly path: string } }[];
}
interface Document {
  readonly paths?: Readonly<Record<string, unknown>>;
}

const directory = fileURLToPath(openapiDirectory);
const documents = readdirSync(directory)
  .filter((name) => name.endsWith('.yaml') && name !== 'redocly.yaml')
  .map((name) => ({ name, path: join(directory, name) }));
const readDocument = (path: string) => parseYaml(readFileSync(path, 'utf8')) as Document;

/** Each published pact with each document that describes every path its interactions call. */
const pairs = publishedContracts().flatMap((pact) => {
  const paths = new Set(
    (JSON.parse(readFileSync(pact, 'utf8')) as Pact).interactions.map((i) => i.request.path),
  );
  return documents
    .filter(({ path }) => [...paths].every((p) => p in (readDocument(path).paths ?? {})))
    .map((document) => ({ pact, document, name: `${pact.split('/').at(-1)} against ${document.name}` }));
});

const validate = (specPathOrUrl: string, mockPathOrUrl: string): Promise<ValidationResult> =>
  SwaggerMockValidatorFactory.create().validate({ specPathOrUrl, mockPathOrUrl });

const summary = (result: ValidationResult, kind: 'errors' | 'warnings'): string[] =>
  result[kind].map((o) => `${o.code} at ${o.mockDetails?.location}: ${o.message}`);

describe('swagger-mock-validator with its default options (PactFlow bi-directional contract testing)', () => {
  const tempDir = useTempDir();

  it('has a document for every published pact', () => {
    const published = publishedContracts();
    expect(published.length).toBeGreaterThan(0);
    expect(new Set(pairs.map((p) => p.pact))).toEqual(new Set(published));
    expect(pairs.map((p) => p.document.name)).toContain('user-group-service.yaml');
  });

  it.each(pairs.map((pair) => [pair.name, pair] as const))('finds no error in %s', async (_name, pair) => {
    const { pact, document } = pair;
    const result = await validate(document.path, pact);
    const warnings = summary(result, 'warnings');
    if (warnings.length > 0)
      console.warn(`swagger-mock-validator warnings for ${document.name}:\n${warnings.join('\n')}`);
    expect(summary(result, 'errors')).toEqual([]);
    expect(result.success).toBe(true);
  });

  it('rejects the pact when Properties says additionalProperties: true, the form the document avoids', async () => {
    const service = documents.find((d) => d.name === 'user-group-service.yaml');
    const pact = pairs.find((p) => p.document === service)?.pact;
    if (service === undefined || pact === undefined) throw new Error('no pact for the service document');
    const document = readDocument(service.path) as Document & {
      components: { schemas: { Properties: { additionalProperties: unknown } } };
    };
    expect(document.components.schemas.Properties.additionalProperties).toEqual({});
    document.components.schemas.Properties.additionalProperties = true;
    const copy = join(tempDir(), 'user-group-service.json');
    writeFileSync(copy, JSON.stringify(document));
    const result = await validate(copy, pact);
    expect(result.success).toBe(false);
    expect(new Set(result.errors.map((e) => e.code))).toEqual(new Set(['response.body.incompatible']));
  });
});
