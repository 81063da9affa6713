import { mkdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { pactPathOf } from '../../../src/proxy/recording.js';
import { call, jsonHeaders, useMocks } from '../../support/http.js';
import { killAllMockProcesses, startProxyProcess } from '../../support/mockProcess.js';
import { useTempDir } from '../../support/tempDir.js';

const mocks = useMocks();
const tempDir = useTempDir('proxy-cli');
afterAll(killAllMockProcesses);

const groupA = { name: 'Customer A', user_group_id: 'customer-a' };
const groupB = { name: 'Customer B', user_group_id: 'customer-b' };

/**
 * The fixtures file's group ids once it and the Pact file beside it hold `ids`, polling for at most 10 s;
 * undefined when they never do.
 */
async function recordedOnceItHolds(path: string, ids: readonly string[]): Promise<string[] | undefined> {
  const read = (file: string) => readFile(file, 'utf8').then(JSON.parse, () => undefined);
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    const fixtures = await read(path);
    const pact = await read(pactPathOf(path));
    const seen: string[] = fixtures?.groups.map((g: { user_group_id: string }) => g.user_group_id) ?? [];
    if (ids.every((id) => seen.includes(id)) && pact?.interactions.length === ids.length) return seen;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

describe('the proxy command', () => {
  it('prints where it listens, forwards, lists invalid exchanges over HTTP, and records on SIGTERM', async () => {
    const mock = await mocks();
    const path = join(tempDir(), 'seen.json');
    const proxy = await startProxyProcess(['--target', mock.url, '--record', path]);

    const forwarded = await call(proxy.url, 'GET', '/api/user', { headers: jsonHeaders(), body: groupA });
    const direct = await call(mock.url, 'GET', '/api/user', { headers: jsonHeaders(), body: groupA });
    const invalid = await call(proxy.url, 'GET', '/api/user', {
      headers: jsonHeaders(),
      body: { name: 'No id' },
    });
    const verdicts = await call(proxy.url, 'GET', '/__admin/requests?invalid=true', { headers: {} });
    proxy.child.kill('SIGTERM');
    const exit = await proxy.exited;

    expect(forwarded.status).toBe(200);
    expect(forwarded.body.user_group).toEqual(direct.body.user_group);
    expect(invalid.status).toBe(400);
    expect(verdicts.status).toBe(200);
    expect(verdicts.body).toHaveLength(1);
    expect(verdicts.body[0]).toMatchObject({
      status: 400,
      fault: 'client',
      diagnostics: [{ code: 'MISSING_FIELD' }],
    });
    expect(exit).toEqual({ code: 0, signal: null });
    expect(proxy.stderr()).not.toContain('cannot be reached');
    const fixtures = JSON.parse(await readFile(path, 'utf8'));
    expect(fixtures.groups).toMatchObject([
      { user_group_id: 'customer-a', token: direct.body.user_group.token },
    ]);
    const pact = JSON.parse(await readFile(pactPathOf(path), 'utf8'));
    expect(pact.interactions).toHaveLength(2);
  });

  it('keeps the recording of what it saw when killed with SIGKILL, each file whole', async () => {
    const mock = await mocks();
    const path = join(tempDir(), 'seen.json');
    const proxy = await startProxyProcess(['--target', mock.url, '--record', path]);

    await call(proxy.url, 'GET', '/api/user', { headers: jsonHeaders(), body: groupA });
    const first = await recordedOnceItHolds(path, ['customer-a']);
    await call(proxy.url, 'GET', '/api/user', { headers: jsonHeaders(), body: groupB });
    const second = await recordedOnceItHolds(path, ['customer-a', 'customer-b']);
    proxy.child.kill('SIGKILL');
    const exit = await proxy.exited;

    expect(first).toEqual(['customer-a']);
    expect(second).toEqual(['customer-a', 'customer-b']);
    expect(exit.signal).toBe('SIGKILL');
    const fixtures = JSON.parse(await readFile(path, 'utf8'));
    expect(fixtures.groups.map((g: { user_group_id: string }) => g.user_group_id)).toEqual([
      'customer-a',
      'customer-b',
    ]);
    const pact = JSON.parse(await readFile(pactPathOf(path), 'utf8'));
    expect(pact.interactions.map((i: { request: { body: unknown } }) => i.request.body)).toEqual([
      groupA,
      groupB,
    ]);
  });

  it('warns on stderr when the target cannot be reached as it starts, and answers 502 until it can', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const target = `http://127.0.0.1:${port}`;
    const proxy = await startProxyProcess(['--target', target]);
    await vi.waitFor(() => expect(proxy.stderr()).toContain('cannot be reached'), {
      timeout: 10_000,
      interval: 50,
    });
    expect(proxy.stderr().trimEnd()).toBe(
      `user-group-mock: proxy: warning: the target ${target} cannot be reached now (connection refused); each request answers 502 UPSTREAM_UNREACHABLE until it can: start the service, or check --target`,
    );
    const answer = await call(proxy.url, 'GET', '/api/user', { headers: jsonHeaders(), body: groupA });
    expect(answer.status).toBe(502);
    expect(answer.body.error.code).toBe('UPSTREAM_UNREACHABLE');
    proxy.child.kill('SIGTERM');
    expect(await proxy.exited).toEqual({ code: 0, signal: null });
  });

  it('says once on stderr that the recording cannot be written, and on SIGTERM what is lost and where (exit 1)', async () => {
    const mock = await mocks();
    const folder = join(tempDir(), 'rec');
    mkdirSync(folder);
    const path = join(folder, 'seen.json');
    const proxy = await startProxyProcess(['--target', mock.url, '--record', path]);
    rmSync(folder, { recursive: true });

    await call(proxy.url, 'GET', '/api/user', { headers: jsonHeaders(), body: groupA });
    await vi.waitFor(() => expect(proxy.stderr()).toContain('cannot write the recording'), {
      timeout: 10_000,
      interval: 50,
    });
    await call(proxy.url, 'GET', '/api/user', { headers: jsonHeaders(), body: groupB });
    proxy.child.kill('SIGTERM');
    const exit = await proxy.exited;

    expect(exit).toEqual({ code: 1, signal: null });
    const lines = proxy.stderr().trimEnd().split('\n');
    expect(lines.filter((line) => line.includes('cannot write the recording'))).toHaveLength(1);
    expect(lines[0]).toMatch(/^user-group-mock: cannot write the recording .*seen\.json \(ENOENT/);
    expect(lines.at(-1)).toMatch(
      /^user-group-mock: the recording could not be written to .*seen\.json and .*seen\.pact\.json \(ENOENT.*\): the last 2 exchange\(s\) seen are lost; nothing was ever written there$/,
    );
  });
});
