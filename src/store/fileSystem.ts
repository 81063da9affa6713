import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * The store's whole view of the disk. Tests pass a wrapped copy to make the Nth write, fsync or rename fail;
 * nothing else in the store touches `node:fs`.
 */
export interface FileSystem {
  open(path: string, flags: string): Promise<fs.FileHandle>;
  readFile(path: string): Promise<Buffer>;
  rename(from: string, to: string): Promise<void>;
  /** A hard link: fails with EEXIST when `to` exists, which makes it an atomic create of a whole file. */
  link(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  readdir(path: string): Promise<string[]>;
  mkdir(path: string, options: { recursive: true }): Promise<unknown>;
}

export const nodeFileSystem: FileSystem = fs;

/** Whether an fs error says the file is not there. */
export const isMissing = (error: unknown): boolean =>
  (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';

/** The error for a file of the database that cannot be read back (`what` is wrong): it is left as it is. */
export const damaged = (what: string): Error =>
  new Error(
    `user-group-mock: ${what}; it was left untouched. Restore it from a backup or start with another --db path.`,
  );

/** A file's bytes, or undefined when it is not there. */
export const readIfPresent = (files: FileSystem, path: string): Promise<Buffer | undefined> =>
  files.readFile(path).catch((error: unknown) => {
    if (isMissing(error)) return undefined;
    throw error;
  });

/** fsyncs a directory, so a rename or a new file in it survives a power cut. */
export async function syncDirectory(files: FileSystem, directory: string): Promise<void> {
  const handle = await files.open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Creates `path` with `text`, fsynced when `sync`; fails with EEXIST when it is there. */
export async function writeNew(files: FileSystem, path: string, text: string, sync = false): Promise<void> {
  const handle = await files.open(path, 'wx');
  try {
    await handle.writeFile(text);
    if (sync) await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A new name beside `path` for a file written aside, naming this process (`.db.json.<pid>.<random>.<suffix>`). */
export const aside = (path: string, suffix: string): string =>
  join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.${suffix}`);

/** Removes the files written `aside` of `path` with one of these suffixes that a writer `gone` (by its pid) left. */
export async function removeAside(
  files: FileSystem,
  path: string,
  suffixes: readonly string[],
  gone: (pid: number) => boolean = () => true,
): Promise<void> {
  const prefix = `.${basename(path)}.`;
  for (const name of await files.readdir(dirname(path))) {
    const [, pid, suffix] = /^(\d+)\.[0-9a-f]+\.(\w+)$/.exec(name.slice(prefix.length)) ?? [];
    if (name.startsWith(prefix) && suffixes.includes(suffix as string) && gone(Number(pid)))
      await files.unlink(join(dirname(path), name)).catch(() => undefined);
  }
}
