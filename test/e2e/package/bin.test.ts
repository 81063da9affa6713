import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { validateResponse } from '../../../src/index.js';
import { type BuiltCli, builtBin as bin, packageRoot as root, runBuiltCli } from '../../support/builtCli.js';
import { call } from '../../support/http.js';
import { type TempDir, tempDir } from '../../support/tempDir.js';

const pkg = JSON.parse(readFileSync(new URL('package.json', `file://${root}`), 'utf8')) as {
  scripts: Record<string, string>;
};

const children = new Set<BuiltCli>();
let dir: TempDir | undefined;
afterEach(async () => {
  for (const cli of children) cli.child.kill('SIGKILL');
  children.clear();
  await dir?.remove();
  dir = undefined;
});

interface Started {
  readonly url: string;
  /** Everything written to stderr so far (the log, one JSON line per event). */
  stderr(): string;
  stop(): Promise<number | null>;
}

/** Starts the built CLI and resolves once it listens (its URL is the first stdout line). */
async function startBin(args: readonly string[], logLevel = 'silent'): Promise<Started> {
  const cli = runBuiltCli(['serve', '--port', '0', '--log-level', logLevel, ...args]);
  children.add(cli);
  const line = await cli.firstLine;
  const url = /^user-group-mock listening on (http:\/\/\S+)$/.exec(line)?.[1];
  if (url === undefined) throw new Error(`unexpected first line: ${line}`);
  return {
    url,
    stderr: cli.stderr,
    stop: async () => {
      cli.child.kill('SIGTERM');
      return (await cli.exited).code;
    },
  };
}

const group = { name: 'Customer A', user_group_id: 'customer-a' };

describe('the built command line (package.json bin)', () => {
  it('is the bundle in dist/bin that npm start runs', () => {
    expect(bin).toBe('dist/bin/main.js');
    // Without a command it serves; `npm start -- proxy --target URL` runs the proxy.
    expect(pkg.scripts.start).toBe(`node ${bin}`);
    expect(readFileSync(new URL(bin, `file://${root}`), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(
      true,
    );
  });

  it('serves the contract in memory and stops cleanly on SIGTERM', async () => {
    const server = await startBin(['--in-memory']);
    const answer = await call(server.url, 'GET', '/api/user', { body: group });
    expect(answer.status).toBe(200);
    const checked = validateResponse({ method: 'GET', path: '/api/user', status: 200, body: answer.body });
    expect(checked.diagnostics).toEqual([]);
    const bad = await call(server.url, 'GET', '/api/user', { raw: '{"name":' });
    expect(bad.body.error.code).toBe('BODY_INVALID_JSON');
    expect(await server.stop()).toBe(0);
  });

  it('finds the request checks precompiled at build time (no Ajv compiling at start)', async () => {
    const server = await startBin(['--in-memory'], 'debug');
    await vi.waitFor(() => expect(server.stderr()).toContain('"requestChecks":"precompiled"'), {
      timeout: 5_000,
    });
    expect(await server.stop()).toBe(0);
  });

  it('keeps a group and its token in its database across a restart', async () => {
    dir = await tempDir('bin');
    const first = await startBin(['--db', dir.db]);
    const created = await call(first.url, 'GET', '/api/user', { body: group });
    expect(created.body.new_user_group).toBe(true);
    expect(await first.stop()).toBe(0);
    const second = await startBin(['--db', dir.db]);
    const again = await call(second.url, 'GET', '/api/user', { body: group });
    expect(again.body).toMatchObject({
      new_user_group: false,
      user_group: { token: created.body.user_group.token },
    });
    expect(await second.stop()).toBe(0);
  });

  it('stops cleanly on SIGTERM sent the moment its first line appears, 50 starts out of 50, leaving no lock', async () => {
    dir = await tempDir('bin-sigterm');
    const base = dir.path;
    const outcomes: string[] = [];
    // Five at a time: each start is signalled as soon as it reports, as a supervisor or a test does.
    for (let batch = 0; batch < 10; batch++) {
      const round = Array.from({ length: 5 }, async (_, i) => {
        const db = `${base}/db-${batch * 5 + i}.json`;
        const cli = runBuiltCli(['serve', '--port', '0', '--db', db, '--log-level', 'silent']);
        children.add(cli);
        const line = await cli.firstLine;
        cli.child.kill('SIGTERM');
        const { code, signal } = await cli.exited;
        children.delete(cli);
        const lock = existsSync(`${db}.lock`) ? 'lock left' : 'no lock';
        return `${line.startsWith('user-group-mock listening on ') ? 'listening' : line}, exit ${code ?? signal}, ${lock}`;
      });
      outcomes.push(...(await Promise.all(round)));
    }
    expect(outcomes).toEqual(Array(50).fill('listening, exit 0, no lock'));
  });

  it('stops cleanly on SIGTERM sent during its start-up, without printing that it listens, leaving no lock', async () => {
    dir = await tempDir('bin-startup');
    // A long change log to replay makes the start-up last long enough to be signalled once the lock is taken.
    writeFileSync(`${dir.db}.log.1`, '{"op":"clearTenant","tenant":"default"}\n'.repeat(300_000));
    const cli = runBuiltCli(['serve', '--port', '0', '--db', dir.db, '--log-level', 'silent']);
    children.add(cli);
    let stdout = '';
    cli.child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    await vi.waitFor(() => expect(existsSync(`${dir?.db}.lock`)).toBe(true), {
      timeout: 20_000,
      interval: 5,
    });
    const printedBeforeSignal = stdout;
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toEqual({ code: 0, signal: null });
    expect(printedBeforeSignal).toBe('');
    expect(stdout).toBe('');
    expect(cli.stderr()).toContain('SIGTERM received');
    expect(existsSync(`${dir.db}.lock`)).toBe(false);
  });

  it('loads the verify command, a chunk of its own', () => {
    const help = execFileSync(process.execPath, [bin, 'verify', '--help'], { cwd: root, encoding: 'utf8' });
    expect(help).toMatch(/^Usage: user-group-mock verify --provider-base-url URL/);
  });
});
