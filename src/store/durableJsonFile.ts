import { dirname } from 'node:path';
import type { Adapter } from 'lowdb';
import { aside, damaged, type FileSystem, readIfPresent, syncDirectory, writeNew } from './fileSystem.js';

/**
 * A lowdb adapter like lowdb's JSONFile, but crash-safe: each write goes to a uniquely named temp file, is
 * fsynced, renamed over the database and the directory fsynced. A crash leaves the old file or the new one,
 * never a torn one. `read` refuses a file that does not parse instead of starting empty over it.
 */
export class DurableJsonFile<T> implements Adapter<T> {
  constructor(
    readonly path: string,
    private readonly files: FileSystem,
  ) {}

  async read(): Promise<T | null> {
    const bytes = await readIfPresent(this.files, this.path);
    if (bytes === undefined) return null;
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch (error) {
      throw damaged(`the database ${this.path} is not valid JSON (${(error as Error).message})`);
    }
    // lowdb reads a falsy value as "no file yet" and would start empty over it: refuse anything but an object.
    if (value === null || typeof value !== 'object')
      throw damaged(`the database ${this.path} holds ${JSON.stringify(value)}, not a JSON object`);
    return value as T;
  }

  async write(data: T): Promise<void> {
    const temp = aside(this.path, 'tmp');
    try {
      await writeNew(this.files, temp, JSON.stringify(data), true);
      await this.files.rename(temp, this.path);
    } catch (error) {
      await this.files.unlink(temp).catch(() => undefined);
      throw error;
    }
    await syncDirectory(this.files, dirname(this.path));
  }
}
