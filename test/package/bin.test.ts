import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { validateResponse } from '../../src/index.js';
import { call } from '../support/http.js';
import { type TempDir, tempDir } from '../support/tempDir.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(new URL('package.json', `file://${root}`), 'utf8')) as {
  bin: Record<string, string>;
  scripts: Record<string, string>;
};
/** The built command line as installed users run it: the bundle `npm run build` writes (never the sources). */
const bin = pkg.bin['user-group-mock'] as string;

const children = new Set<ChildProcess>();
let dir: TempDir | undefined;
afterEach(async () => {
  for (const child of children) child.kill('SIGKILL');
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
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--log-level', logLevel, ...args], {
    cwd: root,
    env: Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('USER_GROUP_MOCK_')),
    ),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the built CLI exited (${code}) before listening`)));
  });
  const url = /^user-group-mock listening on (http:\/\/\S+)$/.exec(line)?.[1];
  if (url === undefined) throw new Error(`unexpected first line: ${line}`);
  return {
    url,
    stderr: () => stderr,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

const group = { name: 'Customer A', user_group_id: 'customer-a' };

describe('the built command line (package.json bin)', () => {
  it('is the bundle in dist/bin that npm start runs', () => {
    expect(bin).toBe('dist/bin/main.js');
    expect(pkg.scripts.start).toBe(`node ${bin} serve`);
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

  it('loads the verify command, a chunk of its own', () => {
    const help = execFileSync(process.execPath, [bin, 'verify', '--help'], { cwd: root, encoding: 'utf8' });
    expect(help).toMatch(/^Usage: user-group-mock verify --provider-base-url URL/);
  });
});
