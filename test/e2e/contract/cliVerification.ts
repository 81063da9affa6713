import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, afterEach, expect, it } from 'vitest';
import { verifyFlags } from '../../../src/cli/verify.js';
import { verifyExitCodes } from '../../../src/cli/verifyReport.js';
import { createValidatingProxy } from '../../../src/index.js';
import { admin } from '../../support/admin.js';
import { type CliProcess, runCli, startCli, stopCli } from '../../support/cli.js';
import { call } from '../../support/http.js';
import { useTempDir } from '../../support/tempDir.js';
import { type ProviderInFront, providerInFront } from './providerInFront.js';

/** The last line `verify` prints: the verdict with its counts, or why nothing was verified. */
const summary = /^user-group-mock: verify: .*$/m;
const tenantOf = (output: string): string => /in tenant (t-[0-9a-z]+)/.exec(output)?.[1] ?? 'no tenant named';

/** `user-group-mock verify` against mocks started from the command line, directly or behind a provider in front. */
export function cliVerification(): void {
  const tempDir = useTempDir();
  const running: CliProcess[] = [];
  const fronts: ProviderInFront[] = [];
  afterEach(async () => {
    for (const front of fronts.splice(0)) await front.close();
  });
  afterAll(async () => {
    for (const cli of running.splice(0)) await stopCli(cli, 'SIGKILL');
  });

  const serve = async (args: readonly string[] = ['--in-memory']): Promise<string> => {
    const mock = await startCli(['--port', '0', '--log-level', 'silent', ...args]);
    running.push(mock);
    return mock.url;
  };
  const inFront = async (...args: Parameters<typeof providerInFront>): Promise<ProviderInFront> => {
    const front = await providerInFront(...args);
    fronts.push(front);
    return front;
  };

  async function verify(args: readonly string[]): Promise<{ code: number | null; output: string }> {
    const cli = runCli(['verify', ...args], { PACT_DO_NOT_TRACK: 'true' });
    const code = await cli.exited;
    return { code, output: stripVTControlCharacters(`${cli.lines.join('\n')}\n${cli.stderr()}`) };
  }

  it('passes against a mock, replaying every interaction in a tenant of its own, and ends with a summary', async () => {
    const url = await serve();
    const { code, output } = await verify(['--provider-base-url', url, '--api-key', 'dev-customer-key']);
    expect(output).toContain('Verifying a pact between user-group-client and user-group-service');
    expect(output).not.toMatch(/\b(INFO|DEBUG)\b/);
    // The key was not the run's: said, so that nobody takes it for checked.
    expect(output).toContain(
      ', made for the run and removed afterwards; --api-key not used, as the provider makes tenants (it applies only to one that makes none, or with --state-setup-url))',
    );
    expect(output.trim().split('\n').at(-1)).toMatch(
      new RegExp(
        `^user-group-mock: verify: ${url} honours the published contract; (\\d+) interactions: \\1 passed, 0 failed, 0 skipped \\(in tenant t-`,
      ),
    );
    expect(code).toBe(verifyExitCodes.honoured.code);
  });

  it('leaves the groups of the provider as they were, across a restart too, and removes its tenant', async () => {
    const db = join(tempDir(), 'db.json');
    const first = await startCli(['--port', '0', '--log-level', 'silent', '--db', db]);
    running.push(first);
    for (const id of ['customer-a', 'customer-b', 'customer-c'])
      expect(
        (await call(first.url, 'GET', '/api/user', { body: { name: id, user_group_id: id } })).status,
      ).toBe(200);
    const before = (await admin(first.url, 'GET', '/__admin/groups')).body;
    expect(before).toHaveLength(3);

    const { code, output } = await verify([
      '--provider-base-url',
      first.url,
      '--api-key',
      'dev-customer-key',
    ]);
    expect((await admin(first.url, 'GET', '/__admin/groups')).body).toEqual(before);
    expect(output).toMatch(summary);
    expect(code).toBe(verifyExitCodes.honoured.code);
    const tenant = tenantOf(output);
    expect((await admin(first.url, 'DELETE', `/__admin/tenants/${tenant}`)).status).toBe(404);

    expect(await stopCli(first)).toBe(0);
    const second = await startCli(['--port', '0', '--log-level', 'silent', '--db', db]);
    running.push(second);
    expect((await admin(second.url, 'GET', '/__admin/groups')).body).toEqual(before);
    expect((await admin(second.url, 'DELETE', `/__admin/tenants/${tenant}`)).status).toBe(404);
  });

  it('fails against a provider that breaks the contract, naming the failed interactions, and removes its tenant', async () => {
    const url = await serve();
    const broken = await inFront(url, ({ path }) =>
      path === '/api/user' ? { status: 500, body: { success: 0 } } : undefined,
    );
    const { code, output } = await verify(['--provider-base-url', broken.url]);
    expect(output).toMatch(/There were \d+ pact failures/);
    expect(output).toContain('expected 200 but was 500');
    expect(output).toContain('  - a get-or-create for a new user group id');
    expect(output.trim().split('\n').at(-1)).toMatch(
      new RegExp(
        `^user-group-mock: verify: ${broken.url} does not honour the published contract; (\\d+) interactions: 0 passed, \\1 failed, 0 skipped`,
      ),
    );
    expect(code).toBe(verifyExitCodes['not-honoured'].code);
    expect(broken.seen).toContain(`DELETE /__admin/tenants/${tenantOf(output)}  204`);
  });

  it('refuses a provider without the tenants API, resetting nothing, unless --allow-reset allows it', async () => {
    const url = await serve();
    const noTenants = await inFront(url, ({ path }) =>
      path.startsWith('/__admin/tenants') ? { status: 404, body: { success: 0 } } : undefined,
    );
    const keys = ['--api-key', 'dev-customer-key', '--testing-api-key', 'dev-testing-key'];
    const refused = await verify(['--provider-base-url', noTenants.url, ...keys]);
    expect(refused.output.trim()).toMatch(
      /^user-group-mock: verify: .* has no tenants API \(POST \/__admin\/tenants answered 404\).*Pass --allow-reset to allow that.*Nothing was verified\.$/,
    );
    expect(refused.code).toBe(verifyExitCodes.refused.code);
    // Read-only besides the refused tenant: the health says whether the provider is a validating proxy.
    expect(noTenants.seen).toEqual(['POST /__admin/tenants  404', 'GET /__admin/health  200']);

    const allowed = await verify(['--provider-base-url', noTenants.url, ...keys, '--allow-reset']);
    expect(allowed.output).toContain('states set up by removing the groups of the scope of --api-key');
    expect(allowed.code).toBe(verifyExitCodes.honoured.code);
    expect(noTenants.seen).toContain('DELETE /__admin/groups  204');
    expect(noTenants.seen).not.toContain('POST /__admin/reset  204');
  });

  it('gives no verdict when the state setup URL cannot set the states up, naming its answer and the fix', async () => {
    const url = await serve();
    const provider = await inFront(url, ({ path }) =>
      path === '/nope' ? { status: 404, body: { success: 0 } } : undefined,
    );
    const { code, output } = await verify([
      '--provider-base-url',
      provider.url,
      '--state-setup-url',
      `${provider.url}/nope`,
      '--api-key',
      'dev-customer-key',
      '--testing-api-key',
      'dev-testing-key',
    ]);
    expect(output.trim().split('\n').at(-1)).toBe(
      `user-group-mock: verify: the provider states could not be set up: the state setup URL ${provider.url}/nope answered 404 for state "a user group exists" ({"success":0}); point --state-setup-url at the provider's state-change endpoint, the one that sets a state up on POST { state, params, action }; docs/integrators.md shows how. Nothing was verified.`,
    );
    expect(output).not.toMatch(/honour|passed|Verifying a pact/);
    expect(provider.seen.filter((line) => line.includes('/api/user'))).toEqual([]);
    expect(code).toBe(verifyExitCodes['could-not-run'].code);
  });

  it('falls back to /__admin/reset, and gives no verdict with --allow-reset when the provider has neither, naming the fix', async () => {
    const url = await serve();
    const noReset = await inFront(url, ({ method, path }) =>
      path.startsWith('/__admin/tenants') ||
      path === '/__admin/reset' ||
      (method === 'DELETE' && path === '/__admin/groups')
        ? { status: 404, body: { success: 0 } }
        : undefined,
    );
    const keys = ['--api-key', 'dev-customer-key', '--testing-api-key', 'dev-testing-key'];
    const { code, output } = await verify(['--provider-base-url', noReset.url, ...keys, '--allow-reset']);
    expect(output.trim().split('\n').at(-1)).toBe(
      `user-group-mock: verify: the provider states could not be set up: the provider has no /__admin/reset, which --allow-reset sets the states up with: POST ${noReset.url}/__admin/reset answered 404 for state "a user group exists" ({"success":0}); give --state-setup-url URL to set the states up through the provider's own state-change endpoint instead; docs/integrators.md shows how. Nothing was verified.`,
    );
    expect(output).not.toMatch(/honour|passed|Verifying a pact/);
    expect(noReset.seen).toEqual([
      'POST /__admin/tenants  404',
      'GET /__admin/health  200',
      'DELETE /__admin/groups  404',
      'POST /__admin/reset  404',
    ]);
    expect(code).toBe(verifyExitCodes['could-not-run'].code);
  });

  it('refuses the validating proxy before any run, naming its target, also with --allow-reset', async () => {
    const url = await serve();
    const proxy = await createValidatingProxy({ host: '127.0.0.1', port: 0, target: url });
    try {
      for (const allowReset of [[], ['--allow-reset']]) {
        const { code, output } = await verify([
          '--provider-base-url',
          proxy.url,
          '--api-key',
          'dev-customer-key',
          ...allowReset,
        ]);
        expect(output.trim()).toBe(
          `user-group-mock: verify: ${proxy.url} is a validating proxy in front of ${new URL(url).origin} (its GET /__admin/health says mode: proxy): it keeps no tenants or groups, so verify cannot set the provider states up through it. Verify the service itself (--provider-base-url ${new URL(url).origin}), or pass --state-setup-url URL and --api-key KEY to set the states up on that service while the requests go through the proxy. Nothing was verified.`,
        );
        expect(code).toBe(verifyExitCodes.refused.code);
      }
    } finally {
      await proxy.close();
    }
  });

  it('stops with one line and no verdict when the provider goes away during the run', {
    timeout: 90_000,
  }, async () => {
    const url = await serve();
    let calls = 0;
    const crashing = await inFront(url, ({ path }) => {
      if (path === '/api/user') calls++;
      return calls >= 3 ? 'reset' : undefined;
    });
    const { code, output } = await verify(['--provider-base-url', crashing.url]);
    expect(output).not.toContain('throw err');
    expect(output.trim().split('\n').at(-1)).toMatch(
      /^user-group-mock: verify: the connection to http:\S+ failed during the run \(ECONNRESET\); is the provider still running\?.*Nothing was verified\.$/,
    );
    expect(code).toBe(verifyExitCodes.unreachable.code);
  });

  it('removes its tenant when interrupted, then ends by the signal', async () => {
    const url = await serve();
    const slow = await inFront(url, ({ path }) => (path === '/api/user' ? 'hold' : undefined));
    const cli = runCli(['verify', '--provider-base-url', slow.url], { PACT_DO_NOT_TRACK: 'true' });
    await slow.firstHeld;
    cli.child.kill('SIGINT');
    await cli.exited;
    expect(cli.child.signalCode).toBe('SIGINT');
    const output = stripVTControlCharacters(cli.stderr());
    expect(output).toMatch(
      /^user-group-mock: verify: interrupted by SIGINT before the end \(in tenant t-.*No verdict\.$/m,
    );
    expect(slow.seen).toContain(`DELETE /__admin/tenants/${tenantOf(output)}  204`);
  });

  it('answers a usage error with its exit code, and documents every flag and exit code in --help', async () => {
    const missing = await verify(['--api-key', 'k']);
    expect(missing.code).toBe(verifyExitCodes.refused.code);
    expect(missing.output).toContain('--provider-base-url URL is required');
    const help = await verify(['--help']);
    expect(help.code).toBe(0);
    for (const flag of Object.keys(verifyFlags)) expect(help.output).toContain(`--${flag}`);
    for (const { code, help: line } of Object.values(verifyExitCodes))
      expect(help.output).toContain(`  ${code}  ${line}`);
  });
}
