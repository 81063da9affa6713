import { mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

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

/** A fresh temp directory per call, removed after the test. */
export function useTempDir(label = 'test'): () => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), `ugm-${label}-`));
    made.push(dir);
    return dir;
  };
}
