import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyExitCodes } from '../../../src/cli/verifyReport.js';
import { providerStates } from '../../../src/contract/providerStates.js';
import { createMockServer, type MockServer } from '../../../src/index.js';
import { pactOf } from '../../../src/proxy/recording.js';
import { runCli } from '../../support/cli.js';
import { useTempDir } from '../../support/tempDir.js';

const tempDir = useTempDir();

/** An integrator's own consumer pact: one interaction the mock honours, one whose request forgot its key. */
function consumerPact(file: string): string {
  const interaction = (description: string, headers: Record<string, string>) => ({
    description,
    providerStates: [{ name: providerStates.noGroups }],
    request: {
      method: 'GET',
      path: '/api/user',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: { name: 'Customer A', user_group_id: 'customer-a' },
    },
    response: { status: 200, body: { success: 1, new_user_group: true } },
  });
  const pact = {
    consumer: { name: 'my-app' },
    provider: { name: 'user-group-service' },
    interactions: [
      interaction('a get-or-create with its key', { Authorization: 'Token dev-customer-key' }),
      interaction('a get-or-create without its key', {}),
    ],
    metadata: { pactSpecification: { version: '3.0.0' } },
  };
  writeFileSync(file, JSON.stringify(pact));
  return file;
}

async function verify(args: readonly string[], env: Record<string, string> = {}) {
  const cli = runCli(['verify', ...args], { PACT_DO_NOT_TRACK: 'true', ...env });
  const code = await cli.exited;
  return { code, output: `${cli.lines.join('\n')}\n${cli.stderr()}` };
}

describe('user-group-mock verify --pact FILE', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await createMockServer();
  });
  afterAll(() => mock.close());

  it.each([
    ['the flag', (file: string) => [['--pact', file], {}] as const],
    ['its environment variable', (file: string) => [[], { USER_GROUP_MOCK_PACT: file }] as const],
  ])(
    'verifies a consumer pact given by %s, with the same states and report',
    {
      timeout: 60_000,
    },
    async (_, given) => {
      const file = consumerPact(join(tempDir(), 'my-app-user-group-service.json'));
      const [args, env] = given(file);
      const { code, output } = await verify(['--provider-base-url', mock.url, ...args], env);
      expect(output).toContain('Verifying a pact between my-app and user-group-service');
      // Piped, as here: no colour, though Pact's native verifier always writes some.
      expect(output).not.toContain('\u001b[');
      expect(output).not.toContain('user-group-client');
      expect(output).toContain('  - a get-or-create without its key');
      expect(output.trim().split('\n').at(-1)).toMatch(
        `user-group-mock: verify: ${mock.url} does not honour the pact ${file}; 2 interactions: 1 passed, 1 failed, 0 skipped (in tenant t-`,
      );
      expect(code).toBe(verifyExitCodes['not-honoured'].code);
    },
  );

  it("prints the mock's diagnostics of the requests it found invalid, read before its tenant is removed", {
    timeout: 60_000,
  }, async () => {
    const file = join(tempDir(), 'my-app-user-group-service.json');
    const pact = {
      consumer: { name: 'my-app' },
      provider: { name: 'user-group-service' },
      interactions: [
        {
          description: 'a get-or-create that forgot the name',
          providerStates: [{ name: providerStates.noGroups }],
          request: {
            method: 'GET',
            path: '/api/user',
            headers: { 'Content-Type': 'application/json', Authorization: 'Token dev-customer-key' },
            body: { user_group_id: 'customer-a' },
          },
          response: { status: 200, body: { success: 1 } },
        },
      ],
      metadata: { pactSpecification: { version: '3.0.0' } },
    };
    writeFileSync(file, JSON.stringify(pact));
    const { code, output } = await verify(['--provider-base-url', mock.url, '--pact', file]);
    expect(output).toContain(
      "user-group-mock: the mock found this request invalid (its journal's diagnostics):",
    );
    expect(output).toMatch(/ {2}- GET \/api\/user 400: [A-Z_]+ at \/body[^\n]*name/);
    expect(code).toBe(verifyExitCodes['not-honoured'].code);
  });

  it('gives no verdict when the provider rate-limits the run, naming the 429s rather than the requests', {
    timeout: 60_000,
  }, async () => {
    const limited = await createMockServer({ rateLimit: 2 });
    try {
      const { code, output } = await verify(['--provider-base-url', limited.url]);
      expect(output.trim().split('\n').at(-1)).toMatch(
        new RegExp(
          `^user-group-mock: verify: ${limited.url} answered \\d+ requests? 429 \\(rate limited\\) during the run, so its failed interactions say nothing of the contract; verify a deployment without a rate limit .*\\. Nothing was verified\\.$`,
        ),
      );
      expect(output).not.toContain('the mock found');
      expect(code).toBe(verifyExitCodes['could-not-run'].code);
    } finally {
      await limited.close();
    }
  });

  it('keeps its verdict when the only 429 was one an interaction expects, and names the real failure', {
    timeout: 60_000,
  }, async () => {
    // One request a minute: the first interaction is served (and answered otherwise than it expects), the second,
    // set up by no state, is rate limited, as it expects.
    const limited = await createMockServer({ rateLimit: 1 });
    const request = {
      method: 'GET',
      path: '/api/user',
      headers: { 'Content-Type': 'application/json', Authorization: 'Token dev-customer-key' },
      body: { name: 'Customer A', user_group_id: 'customer-a' },
    };
    const pact = {
      consumer: { name: 'my-app' },
      provider: { name: 'user-group-service' },
      interactions: [
        {
          description: 'a get-or-create that expects the group to exist',
          providerStates: [{ name: providerStates.noGroups }],
          request,
          response: { status: 200, body: { success: 1, new_user_group: false } },
        },
        {
          description: 'a get-or-create past the rate limit',
          request,
          response: { status: 429, body: { success: 0 } },
        },
      ],
      metadata: { pactSpecification: { version: '3.0.0' } },
    };
    const file = join(tempDir(), 'limits.pact.json');
    writeFileSync(file, JSON.stringify(pact));
    try {
      const { code, output } = await verify(['--provider-base-url', limited.url, '--pact', file]);
      expect(output).toContain('a get-or-create that expects the group to exist');
      expect(output).not.toContain('rate limited) during the run');
      expect(code).toBe(verifyExitCodes['not-honoured'].code);
    } finally {
      await limited.close();
    }
  });

  it('refuses a --pact file that does not exist or is not a pact, before any run', async () => {
    const missing = join(tempDir(), 'nope.json');
    const notPact = join(tempDir(), 'package.json');
    writeFileSync(notPact, '{"name":"my-app"}');
    // The Pact file the proxy's recording writes: a record of the traffic, whose key is <API_KEY>.
    const recorded = join(tempDir(), 'seen.pact.json');
    const seen = {
      method: 'GET',
      path: '/api/user',
      query: '',
      operationId: 'getOrCreateUserGroup',
      apiKey: 'live-key',
      keyScope: undefined,
      requestContentType: 'application/json',
      request: { name: 'Customer A', user_group_id: 'customer-a' },
      status: 200,
      responseContentType: 'application/json',
      response: { success: 1 },
    };
    writeFileSync(recorded, JSON.stringify(pactOf([seen], { consumer: 'app', provider: 'service' })));
    for (const [file, said] of [
      [missing, `--pact "${missing}" does not exist`],
      [notPact, `--pact "${notPact}" has no "interactions" array`],
      [recorded, `--pact "${recorded}" is the proxy's record of traffic`],
    ] as const) {
      const { code, output } = await verify(['--provider-base-url', mock.url, '--pact', file]);
      expect(output).toContain(said);
      expect(output).not.toContain('Verifying a pact');
      expect(code).toBe(verifyExitCodes.refused.code);
    }
  });
});
