import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedTypesUrl, generateTypes } from '../../scripts/types.js';

describe('src/spec/openapi-types.generated.ts', () => {
  it('is what the document generates today (run "npm run generate:types" when this fails)', async () => {
    expect(readFileSync(generatedTypesUrl, 'utf8')).toBe(await generateTypes());
  });
});
