import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type Change, isChange } from '../domain/changes.js';
import { damaged, type FileSystem, readIfPresent, syncDirectory } from './fileSystem.js';

/**
 * An append-only log of changes, one JSON line each. `append` returns once the lines are fdatasynced; a failed
 * append truncates the file back to its last good length, so a half-written batch never reaches a later read.
 * When that truncate fails too, the next append truncates first (the file is opened for appending: without the
 * cut, new lines would land after the failed batch and bring it back on the next start).
 */
export class ChangeLog {
  #size: number;
  #records: number;
  #tailToCut = false;

  private constructor(
    private readonly handle: FileHandle,
    size: number,
    records: number,
  ) {
    this.#size = size;
    this.#records = records;
  }

  /** Opens (creating) the log for appending, after dropping a torn last line left by a crash. */
  static async open(
    files: FileSystem,
    path: string,
    replayed: { bytes: number; records: number },
  ): Promise<ChangeLog> {
    const handle = await files.open(path, 'a+');
    try {
      const { size } = await handle.stat();
      if (size !== replayed.bytes) {
        await handle.truncate(replayed.bytes);
        await handle.sync();
      }
      // A new log's directory entry must be durable before anything appended to it is acknowledged.
      await syncDirectory(files, dirname(path));
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
    return new ChangeLog(handle, replayed.bytes, replayed.records);
  }

  get records(): number {
    return this.#records;
  }

  async append(changes: readonly Change[]): Promise<void> {
    if (changes.length === 0) return;
    let text = '';
    for (const change of changes) text += `${JSON.stringify(change)}\n`;
    const bytes = Buffer.from(text, 'utf8');
    try {
      if (this.#tailToCut) {
        await this.handle.truncate(this.#size);
        this.#tailToCut = false;
      }
      let written = 0;
      while (written < bytes.length) {
        const { bytesWritten } = await this.handle.write(
          bytes,
          written,
          bytes.length - written,
          this.#size + written,
        );
        written += bytesWritten;
      }
      await this.handle.datasync();
    } catch (error) {
      this.#tailToCut = await this.handle.truncate(this.#size).then(
        () => false,
        () => true,
      );
      throw error;
    }
    this.#size += bytes.length;
    this.#records += changes.length;
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

/**
 * Reads a log's complete lines. A last line without its newline is a write the crash cut short (never
 * acknowledged) and is skipped; a complete line that does not parse means the file is damaged.
 */
export async function readChangeLog(
  files: FileSystem,
  path: string,
): Promise<{ changes: Change[]; bytes: number; records: number; torn: number }> {
  const buffer = await readIfPresent(files, path);
  if (buffer === undefined) return { changes: [], bytes: 0, records: 0, torn: 0 };
  const end = buffer.lastIndexOf(0x0a) + 1;
  const changes: Change[] = [];
  for (const [index, text] of buffer.subarray(0, end).toString('utf8').split('\n').entries()) {
    if (text === '') continue;
    try {
      const change: unknown = JSON.parse(text);
      if (!isChange(change)) throw new Error('not a change');
      changes.push(change);
    } catch {
      throw damaged(`the change log ${path} is damaged at line ${index + 1}`);
    }
  }
  // Bytes after the last newline: a line whose write a crash cut off (never acknowledged), dropped on open.
  return { changes, bytes: end, records: changes.length, torn: buffer.length - end };
}
