import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openapiDirectory, parseYaml } from '../../src/spec/document.js';

const built = new URL('../../dist/openapi/', import.meta.url);
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
