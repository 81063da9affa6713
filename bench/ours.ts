import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './config.js';
import { type ServerProcess, spawnServer, withoutExtraCerts } from './proc.js';

/** Our built CLI; BENCH_OURS_CLI points the benchmark at another build (or a stub). */
export const OUR_CLI = process.env.BENCH_OURS_CLI ?? join(ROOT, 'dist/bin/main.js');

/** The environment without USER_GROUP_MOCK_* settings, so that only the flags configure our processes. */
export const flagsOnlyEnv: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith('USER_GROUP_MOCK_')),
);

/** What our processes run in: also without NODE_EXTRA_CA_CERTS (see `withoutExtraCerts`). */
export const oursEnv = withoutExtraCerts(flagsOnlyEnv);

/** Why our server cannot be benchmarked, or undefined when it can. */
export function oursMissing(): string | undefined {
  return existsSync(OUR_CLI) ? undefined : `${OUR_CLI} not found (run npm run build)`;
}

/** Our server (`cli`'s build) on port 0, in memory, or durable with `db` (a JSON file path), in `environment`. */
export function startOurs(
  db?: string,
  timeoutMs = 30_000,
  env = oursEnv,
  cli = OUR_CLI,
): Promise<ServerProcess> {
  const storage = db === undefined ? ['--in-memory'] : ['--db', db];
  return spawnServer({
    name: 'ours',
    command: process.execPath,
    args: [cli, 'serve', '--host', '127.0.0.1', '--port', '0', ...storage, '--log-level', 'silent'],
    readyLine: /^user-group-mock listening on (http:\/\/\S+)$/,
    timeoutMs,
    env,
  });
}
