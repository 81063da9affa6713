import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { freePort } from './ports.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface PrismMock {
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts `prism mock openapi/user-group-service.yaml` (stateless, from the same document) and waits until it answers. */
export async function startPrism(timeoutMs = 25_000): Promise<PrismMock> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    `${root}node_modules/.bin/prism`,
    [
      'mock',
      'openapi/user-group-service.yaml',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--errors',
      'false',
    ],
    { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`prism exited with ${child.exitCode}: ${stderr}`);
    try {
      const response = await request(`${url}/api/user`, {
        method: 'GET',
        headersTimeout: 500,
        bodyTimeout: 500,
      });
      await response.body.dump();
      return { url, stop };
    } catch {
      await sleep(200);
    }
  }
  await stop();
  throw new Error(`prism did not answer on ${url} within ${timeoutMs} ms: ${stderr}`);
}
