import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { builtImage, containersRequired, dockerApi, engine, engineMissing } from '../../support/container.js';
import { publishedExample } from '../../support/publishedExample.js';

const docs = new URL('../../../docs/', import.meta.url);
const example = new URL('examples/container/testcontainers.example.ts', docs);

const runs = engine !== undefined || containersRequired;
if (!runs) console.warn(engineMissing);

/* docs/container.md shows this file verbatim, importing from the package name; here it runs as written. */
describe.skipIf(!runs)('docs/container.md, the Testcontainers example', { tags: ['slow'] }, async () => {
  const api = await dockerApi();
  Object.assign(process.env, api.env);
  afterAll(() => api.stop());
  await builtImage();
  await import('../../../docs/examples/container/testcontainers.example.js');
});

describe('docs/container.md', () => {
  it('shows the Testcontainers example verbatim, importing from user-group-mock', () => {
    expect(readFileSync(new URL('container.md', docs), 'utf8')).toContain(publishedExample(example));
  });
});
