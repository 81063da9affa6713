import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { type ServerProcess, spawnServer } from './proc.js';

/** Same shape and size as our get-or-create answer for an existing group. */
const RESPONSE = JSON.stringify({
  success: 1,
  new_user_group: false,
  user_group: {
    team_id: 1,
    token: '3f9c1e0b7a4d2c6e8f1a0b3c5d7e9f2a4c6e8a0b2d4f6a8c0e2a4c6e8f0a1b3c',
    name: 'Customer A',
    provided_id: 'customer-a',
    properties: null,
  },
});

/** The ceiling: a bare node:http server that reads and parses the body, then sends a fixed answer. */
export function createCeilingServer(): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        JSON.parse(Buffer.concat(chunks).toString());
      } catch {
        res.writeHead(400).end();
        return;
      }
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(RESPONSE),
      });
      res.end(RESPONSE);
    });
  });
}

const self = fileURLToPath(import.meta.url);

/** Runs the ceiling in its own process, like ours and Prism, so it does not share a core with the load. */
export function startCeiling(): Promise<ServerProcess> {
  return spawnServer({
    name: 'ceiling',
    command: process.execPath,
    args: ['--import', 'tsx', self],
    readyLine: /^ceiling listening on (http:\/\/\S+)$/,
  });
}

if (process.argv[1] === self) {
  const server = createCeilingServer();
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    console.log(`ceiling listening on http://127.0.0.1:${address.port}`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
