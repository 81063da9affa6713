import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runPaced } from '../../../bench/paced.js';

let server: Server | undefined;

async function serve(listener: RequestListener): Promise<string> {
  server = createServer(listener);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** Answers `status` with a JSON body once the request's body has arrived (framed by Content-Length unless `chunked`). */
function answering(status: number, seen: string[] = [], chunked = false): RequestListener {
  return (req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      seen.push(body);
      const answer = '{"success":1}';
      res.writeHead(status, {
        'Content-Type': 'application/json',
        ...(chunked ? {} : { 'Content-Length': String(answer.length) }),
      });
      res.end(answer);
    });
  };
}

describe('the paced load of the benchmark (bench/paced.ts)', () => {
  it('sends rate × seconds GET requests with their body over the connections, each answer framed', async () => {
    const seen: string[] = [];
    const url = await serve(answering(200, seen));
    const result = await runPaced({ url, rate: 200, connections: 4, seconds: 0.5 });
    expect(result.requests).toBe(100);
    expect(seen).toHaveLength(100);
    expect(new Set(seen)).toEqual(
      new Set([JSON.stringify({ name: 'Customer A', user_group_id: 'customer-a' })]),
    );
    expect(result.errors).toBe(0);
    expect(result.non2xx).toBe(0);
    expect(result.p50).toBeGreaterThan(0);
    expect(result.p99).toBeGreaterThanOrEqual(result.p50);
  });

  it('counts answers outside 2xx', async () => {
    const url = await serve(answering(503));
    const result = await runPaced({ url, rate: 100, connections: 2, seconds: 0.2 });
    expect(result.non2xx).toBe(result.requests);
    expect(result.requests).toBe(20);
  });

  it('refuses answers it cannot frame (chunked) with a clear error instead of hanging', async () => {
    const url = await serve(answering(200, [], true));
    await expect(runPaced({ url, rate: 100, connections: 2, seconds: 0.2 })).rejects.toThrow(
      /without Content-Length/,
    );
  });

  it('counts the requests a dropped connection leaves unanswered as errors, and returns', async () => {
    const url = await serve((req) => req.socket.destroy());
    const result = await runPaced({ url, rate: 100, connections: 2, seconds: 0.2, timeoutMs: 2_000 });
    expect(result.requests).toBe(0);
    expect(result.errors).toBe(20);
  });
});
