import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir {
  readonly path: string;
  /** `<dir>/db.json`, the database path the reliability tests use. */
  readonly db: string;
  remove(): Promise<void>;
}

/** A fresh directory under the OS temp dir; `remove` deletes it and everything in it. */
export async function tempDir(label: string): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), `ugm-${label}-`));
  return {
    path,
    db: join(path, 'db.json'),
    remove: () => rm(path, { recursive: true, force: true, maxRetries: 3 }),
  };
}
