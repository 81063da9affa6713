import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Group } from '../src/domain/model.js';

/**
 * Writes a database file holding `count` Customer groups `${prefix}-0` ... of the default tenant, in the
 * format of src/store/snapshot.ts (its `toSnapshot` gives the envelope; the groups are streamed in, so that
 * a million of them never sit in this process as one string). Returns the seconds it took.
 */
export async function writeDatabase(path: string, prefix: string, count: number): Promise<number> {
  const started = performance.now();
  const { toSnapshot } = await import('../src/store/snapshot.js');
  const { emptyWorld } = await import('../src/domain/model.js');
  const world = emptyWorld();
  world.nextTeamId = count + 1;
  const envelope = JSON.stringify(toSnapshot(world, 1));
  const marker = '"groups":[]';
  const at = envelope.indexOf(marker);
  if (at < 0 || envelope.indexOf(marker, at + 1) >= 0) {
    throw new Error('src/store/snapshot.ts: unexpected database layout (expected one tenant with "groups")');
  }
  const out = createWriteStream(path);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(`${envelope.slice(0, at)}"groups":[`);
  const chunkSize = 10_000;
  for (let first = 0; first < count; first += chunkSize) {
    const tokens = randomBytes(32 * chunkSize).toString('hex');
    const chunk: string[] = [];
    for (let i = first; i < Math.min(count, first + chunkSize); i++) {
      const token = tokens.slice(64 * (i - first), 64 * (i - first + 1));
      chunk.push(JSON.stringify(group(prefix, i, token)));
    }
    await write((first === 0 ? '' : ',') + chunk.join(','));
  }
  await write(`]${envelope.slice(at + marker.length)}`);
  out.end();
  await once(out, 'finish');
  return (performance.now() - started) / 1_000;
}

function group(prefix: string, i: number, token: string): Group {
  return {
    environment: 'Customer',
    team_id: i + 1,
    token,
    name: `Group ${prefix}-${i}`,
    provided_id: `${prefix}-${i}`,
    mapping: null,
    properties: null,
  };
}

/** Runs `use` with the path of a database file in a fresh temporary folder, removed afterwards. */
export async function withTempDb<T>(use: (db: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'ugm-bench-'));
  try {
    return await use(join(dir, 'db.json'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
