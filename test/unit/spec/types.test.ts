import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedTypes, generateTypes } from '../../../scripts/types.js';

describe('the generated types', () => {
  it.each(generatedTypes.map((t) => ({ ...t, name: t.output.pathname.split('/').at(-1) })))(
    '$name is what its document generates today (run "npm run generate:types" when this fails)',
    async ({ document, output }) => {
      expect(readFileSync(output, 'utf8')).toBe(await generateTypes(document));
    },
  );
});
