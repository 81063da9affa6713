import { readdirSync, readFileSync } from 'node:fs';
import { PactV4 } from '@pact-foundation/pact';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutDependencyDeprecation } from '../../../src/contract/proxyGuard.js';
import { createMockServer, validateRequest } from '../../../src/index.js';
import { call } from '../../support/http.js';

const docs = new URL('../../../docs/', import.meta.url);
const examples = readdirSync(new URL('examples/', docs)).filter((name) => name.endsWith('.example.ts'));

/*
 * docs/integrators.md shows each example verbatim, importing from the package name; here each runs as written.
 * vitest collects their tests into the describe block that imports them.
 */
describe('integrator guide, (a) the invalid-request journal', async () => {
  await import('../../../docs/examples/journal.example.js');
});
describe('integrator guide, (b) the validators in your own tests', async () => {
  await import('../../../docs/examples/validators.example.js');
});
describe('integrator guide, (c) Pact on the consumer side', async () => {
  // Pact's native core takes its log level from the first Pact made in a process, and the example's PactV4 logs
  // at info (its default). A Pact made here first, at error, keeps the core quiet while the example runs as written.
  process.env.PACT_DO_NOT_TRACK = 'true';
  new PactV4({ consumer: 'quiet', provider: 'quiet', logLevel: 'error' });
  // The example's Verifier forwards through http-proxy, whose util._extend Node 22 and later report as DEP0060:
  // Pact's warning, not the example's, held back so that the test run's output stays its own.
  let restoreWarnings = (): void => {};
  beforeAll(() => {
    restoreWarnings = withoutDependencyDeprecation('DEP0060');
  });
  afterAll(() => restoreWarnings());
  await import('../../../docs/examples/pact.example.js');
});

describe('integrator guide', () => {
  const guide = readFileSync(new URL('integrators.md', docs), 'utf8');

  it.each(examples)('shows %s verbatim, importing from user-group-mock', (name) => {
    const source = readFileSync(new URL(`examples/${name}`, docs), 'utf8');
    const published = source.replaceAll("'../../src/index.js'", "'user-group-mock'");
    expect(published).not.toContain('../../');
    expect(guide).toContain(published.trim());
  });

  it('runs every example it has', () => {
    expect(examples.sort()).toEqual(['journal.example.ts', 'pact.example.ts', 'validators.example.ts']);
  });

  it('relies on checks that catch a broken client', async () => {
    const mock = await createMockServer();
    try {
      await call(mock.url, 'GET', '/api/user', { body: { name: 'Customer A', userGroupId: 'customer-a' } });
      const journal = await call(mock.url, 'GET', '/__admin/requests?invalid=true');
      expect(journal.body).toHaveLength(1);
    } finally {
      await mock.close();
    }
    const bearer = validateRequest({
      method: 'GET',
      path: '/api/user',
      headers: { authorization: 'Bearer my-api-key', 'content-type': 'application/json' },
      body: { name: 'Customer A', user_group_id: 'customer-a' },
    });
    expect(bearer.diagnostics.map((d) => d.code)).toEqual(['AUTH_BEARER']);
  });
});
