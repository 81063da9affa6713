import { stripVTControlCharacters } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { verifyFlags } from '../../src/cli/verify.js';
import { type CliProcess, runCli, startCli, stopCli } from '../support/cli.js';

/** `user-group-mock verify` against mocks started from the command line: one with the contract's keys, one without. */
export function cliVerification(): void {
  const running: CliProcess[] = [];
  afterAll(async () => {
    for (const cli of running.splice(0)) await stopCli(cli, 'SIGKILL');
  });

  async function verify(args: readonly string[]): Promise<{ code: number | null; output: string }> {
    const cli = runCli(['verify', ...args], { PACT_DO_NOT_TRACK: 'true' });
    const code = await cli.exited;
    return { code, output: stripVTControlCharacters(`${cli.lines.join('\n')}\n${cli.stderr()}`) };
  }

  it('passes against a mock started with the default keys, and prints Pact’s report', async () => {
    const mock = await startCli(['--port', '0', '--in-memory', '--log-level', 'silent']);
    running.push(mock);
    const keys = ['--api-key', 'dev-customer-key', '--testing-api-key', 'dev-testing-key'];
    const { code, output } = await verify(['--provider-base-url', mock.url, ...keys]);
    expect(output).toContain('Verifying a pact between user-group-client and user-group-service');
    expect(output).toContain(`${mock.url} honours the published contract`);
    expect(code).toBe(0);
  });

  it('fails against a mock started with another key, naming the failed interactions', async () => {
    const mock = await startCli([
      '--port',
      '0',
      '--in-memory',
      '--log-level',
      'silent',
      '--api-key',
      'other-key',
    ]);
    running.push(mock);
    const { code, output } = await verify(['--provider-base-url', mock.url, '--api-key', 'dev-customer-key']);
    expect(output).toMatch(/There were \d+ pact failures/);
    expect(output).toContain('expected 200 but was 401');
    expect(output).toContain(`${mock.url} does not honour the contract`);
    expect(code).toBe(1);
  });

  it('answers a usage error with exit code 2, and documents every flag in --help', async () => {
    const missing = await verify(['--api-key', 'k']);
    expect(missing.code).toBe(2);
    expect(missing.output).toContain('--provider-base-url URL is required');
    const help = await verify(['--help']);
    expect(help.code).toBe(0);
    for (const flag of Object.keys(verifyFlags)) expect(help.output).toContain(`--${flag}`);
  });
}
