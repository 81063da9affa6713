import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createUserGroupClient } from '../../../src/index.js';
import { service, useMocks } from '../../support/admin.js';
import { publishedExample } from '../../support/publishedExample.js';

const docs = new URL('../../../docs/', import.meta.url);
const example = new URL('examples/ci/parallel.example.ts', docs);

/* docs/ci.md shows this file verbatim, importing from the package name; here it runs as written. */
describe('docs/ci.md, the vitest example', async () => {
  await import('../../../docs/examples/ci/parallel.example.js');
});

describe('docs/ci.md', () => {
  const start = useMocks();

  it('shows the example verbatim in docs/ci.md and the README, importing from user-group-mock', () => {
    const published = publishedExample(example);
    expect(readFileSync(new URL('ci.md', docs), 'utf8')).toContain(published);
    expect(readFileSync(new URL('../README.md', docs), 'utf8')).toContain(published);
  });

  it('relies on a check that catches a broken client in its tenant', async () => {
    const mock = await start();
    const tenant = await mock.createTenant();
    const other = await mock.createTenant();
    const client = createUserGroupClient({ baseUrl: mock.url, apiKey: tenant.api_keys.Customer });
    await client.getOrCreate({ name: 'Customer A', user_group_id: 'customer-a' });
    await service(mock, 'GET', { name: 'Customer A', userGroupId: 'customer-a' }, tenant.api_keys.Testing);
    const invalid = await mock.requests({ invalid: true }, tenant.id);
    expect(invalid.map((e) => e.diagnostics.map((d) => d.path))).toEqual([
      ['/body/userGroupId', '/body/user_group_id'],
    ]);
    expect(await mock.requests({ invalid: true }, other.id)).toEqual([]);
  });
});
