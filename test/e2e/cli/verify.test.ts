import { readFileSync } from 'node:fs';
import { stripVTControlCharacters } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runVerify } from '../../../src/cli/verify.js';
import { verifyExitCodes } from '../../../src/cli/verifyReport.js';
import { type CliProcess, runCli, stopCli } from '../../support/cli.js';

/** What `runVerify` wrote, stdout and stderr in order, while `run` ran in this process. */
async function capture(run: () => Promise<number>): Promise<{ code: number; output: string }> {
  let output = '';
  const write = (chunk: string | Uint8Array): boolean => {
    output += String(chunk);
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(write);
  vi.spyOn(process.stderr, 'write').mockImplementation(write);
  try {
    return { code: await run(), output };
  } finally {
    vi.restoreAllMocks();
  }
}

describe('user-group-mock verify, when nothing can be verified', () => {
  const running: CliProcess[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const cli of running.splice(0)) await stopCli(cli, 'SIGKILL');
  });

  it('fails fast against an unreachable provider with one line and its own exit code', {
    timeout: 60_000,
  }, async () => {
    const args = ['--provider-base-url', 'http://127.0.0.1:1', '--api-key', 'dev-customer-key'];
    const cli = runCli(['verify', ...args], { PACT_DO_NOT_TRACK: 'true' });
    running.push(cli);
    const code = await cli.exited;
    const output = stripVTControlCharacters(`${cli.lines.join('\n')}\n${cli.stderr()}`).trim();
    expect(output).toMatch(
      /^user-group-mock: verify: cannot reach http:\/\/127\.0\.0\.1:1 \(connection refused\); is the provider running\? [^\n]*Nothing was verified\.$/,
    );
    expect(code).toBe(verifyExitCodes.unreachable.code);
  });

  it.each([
    ['127.0.0.1:4010', 'http://127.0.0.1:4010'],
    ['ftp://localhost:4010', 'http://localhost:4010'],
  ])(
    'says a --provider-base-url of %s lacks its http scheme, not that the flag is missing',
    async (url, fix) => {
      const { code, output } = await capture(() => runVerify(['--provider-base-url', url], {}));
      expect(output).toContain(`--provider-base-url "${url}" is not an http or https URL`);
      expect(output).toContain(`e.g. ${fix}`);
      expect(output).not.toContain('is required');
      expect(code).toBe(verifyExitCodes.refused.code);
    },
  );

  it('refuses a --provider-base-url that ends in /api/user before any run, naming the base URL', async () => {
    const url = 'http://127.0.0.1:1/api/user';
    const { code, output } = await capture(() => runVerify(['--provider-base-url', url], {}));
    expect(output).toContain(
      `--provider-base-url "${url}" ends in /api/user, the path each call adds to the base URL (the calls would go to /api/user/api/user); give the service's base URL, e.g. http://127.0.0.1:1.`,
    );
    expect(code).toBe(verifyExitCodes.refused.code);
  });

  it('gives no verdict and its own exit code when @pact-foundation/pact is missing', async () => {
    const notInstalled = Object.assign(new Error("Cannot find package '@pact-foundation/pact'"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    const { code, output } = await capture(() =>
      runVerify(
        ['--provider-base-url', 'http://127.0.0.1:1', '--api-key', 'dev-customer-key'],
        {},
        { loadPact: () => Promise.reject(notInstalled) },
      ),
    );
    expect(output).toBe(
      'user-group-mock: verify: needs @pact-foundation/pact, which is not installed here; install it next to user-group-mock (npm i -D @pact-foundation/pact). Nothing was verified.\n',
    );
    expect(output).not.toContain('honour');
    expect(code).toBe(verifyExitCodes['missing-dependency'].code);
  });

  it('has a distinct exit code for each way it ends, each documented in docs/integrators.md', () => {
    const codes = Object.values(verifyExitCodes).map(({ code }) => code);
    expect(new Set(codes).size).toBe(codes.length);
    const guide = readFileSync(new URL('../../../docs/integrators.md', import.meta.url), 'utf8');
    for (const { code, help } of Object.values(verifyExitCodes)) {
      const text = help.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      expect(guide).toMatch(new RegExp(`^\\| *${code} *\\| *${text} *\\|$`, 'm'));
    }
  });
});
