import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { errorCatalogue } from '../../src/errors.js';
import { openapiDirectory } from '../../src/spec/loadDocument.js';

interface Doc {
  components?: { schemas?: Record<string, { enum?: string[] }> };
}

/** The codes every OpenAPI document declares, from its `*ErrorCode` schemas. */
function documentedCodes(): string[] {
  return readdirSync(openapiDirectory)
    .filter((name) => name.endsWith('.yaml') && name !== 'redocly.yaml')
    .flatMap((name) => {
      const doc = parse(readFileSync(new URL(name, openapiDirectory), 'utf8')) as Doc;
      return Object.entries(doc.components?.schemas ?? {})
        .filter(([schema]) => schema.endsWith('ErrorCode'))
        .flatMap(([, schema]) => schema.enum ?? []);
    });
}

/** `| \`CODE\` | status | ... |` rows of the README's Errors section. */
function readmeRows(): Map<string, string> {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.split('\n## Errors')[1]?.split('\n## ')[0] ?? '';
  const rows = new Map<string, string>();
  for (const match of section.matchAll(/^\| `([A-Z_]+)` \| (\w+) \|/gm))
    rows.set(match[1] as string, match[2] as string);
  return rows;
}

describe('the error catalogue', () => {
  const catalogue = Object.keys(errorCatalogue).sort();

  it('has exactly the codes the OpenAPI documents declare', () => {
    expect([...new Set(documentedCodes())].sort()).toEqual(catalogue);
  });

  it('is documented in the README with each status, and the README lists no other code', () => {
    const rows = readmeRows();
    expect([...rows.keys()].sort()).toEqual(catalogue);
    for (const [code, entry] of Object.entries(errorCatalogue)) {
      const status = rows.get(code);
      if (code !== 'INJECTED_FAULT') expect(status, code).toBe(String(entry.status));
    }
  });
});
