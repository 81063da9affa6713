import { join } from 'node:path';
import { ROOT } from './config.js';
import { freePort, type ServerProcess, spawnServer } from './proc.js';

/** Prism's static mock of the same document, as a CLI process on a free port (in `env`), polled until it answers. */
export async function startPrism(env: NodeJS.ProcessEnv = process.env): Promise<ServerProcess> {
  const port = await freePort();
  return spawnServer({
    name: 'Prism',
    command: join(ROOT, 'node_modules/.bin/prism'),
    args: [
      'mock',
      join(ROOT, 'openapi/user-group-service.yaml'),
      ...['--host', '127.0.0.1', '--port', String(port), '--errors', 'false', '--verboseLevel', 'silent'],
    ],
    port,
    timeoutMs: 60_000,
    env,
  });
}
