import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { type FileSystem, nodeFileSystem } from '../../../src/store/fileSystem.js';
import { FaultyFileSystem } from '../../support/faultyFiles.js';
import { useMocks } from '../../support/http.js';
import { useTempDir } from '../../support/tempDir.js';

const tempDir = useTempDir();
const start = useMocks();

describe('a database file', () => {
  it('keeps groups, tokens and team_ids across a restart', async () => {
    const db = join(tempDir(), 'db.json');
    const first = await start({ db });
    const a = (await first.api('GET', { name: 'A', user_group_id: 'a' })).body.user_group;
    const b = (await first.api('GET', { name: 'B', user_group_id: 'b' })).body.user_group;
    const rotated = (await first.api('POST', { current_token: b.token })).body.user_group;
    await first.close();

    const second = await start({ db });
    const again = await second.api('GET', { name: 'A', user_group_id: 'a' });
    expect(again.body).toMatchObject({
      new_user_group: false,
      user_group: { token: a.token, team_id: a.team_id },
    });
    expect((await second.api('POST', { current_token: b.token })).status).toBe(404);
    const rotatedAgain = await second.api('POST', { current_token: rotated.token });
    expect(rotatedAgain.body.user_group.team_id).toBe(b.team_id);
    const c = (await second.api('GET', { name: 'C', user_group_id: 'c' })).body.user_group;
    expect([a.team_id, b.team_id]).not.toContain(c.team_id);
  });

  it('keeps everything across compactions into the lowdb snapshot', async () => {
    const dir = tempDir();
    const db = join(dir, 'db.json');
    const first = await start({ db, compactAfter: 5 });
    for (let i = 0; i < 30; i++) await first.api('GET', { name: `G${i}`, user_group_id: `g${i}` });
    await first.close();
    const snapshot = JSON.parse(readFileSync(db, 'utf8'));
    expect(snapshot.format).toBe('user-group-mock/1');
    expect(snapshot.tenants[0].groups.length).toBeGreaterThan(0);
    const second = await start({ db });
    expect(await second.groups()).toHaveLength(30);
  });

  it('reports a failed compaction as a process warning when no onWarning is given', async () => {
    const warned = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const files = new FaultyFileSystem();
      files.fail('rename', { code: 'EIO' });
      const db = join(tempDir(), 'db.json');
      const server = await start({ db, files, compactAfter: 2 });
      for (let i = 0; i < 20 && files.struck === 0; i++)
        await server.api('GET', { name: `G${i}`, user_group_id: `g${i}` });
      await vi.waitFor(() => expect(warned).toHaveBeenCalledTimes(1));
      expect(warned).toHaveBeenCalledWith(
        `user-group-mock: compaction of ${db} failed (EIO: injected fault, rename); the change logs still hold everything and compaction will be retried.`,
      );
    } finally {
      warned.mockRestore();
    }
  });

  it('refuses a second server on the same file', async () => {
    const db = join(tempDir(), 'db.json');
    await start({ db });
    await expect(start({ db })).rejects.toThrow(/another server \(pid \d+\) is using this database/);
  });

  it('refuses to start on a corrupt file and leaves it untouched', async () => {
    const db = join(tempDir(), 'db.json');
    writeFileSync(db, '{"format":"user-group-mock/1","tenants": [');
    await expect(start({ db })).rejects.toThrow(/not valid JSON.*left untouched/);
    expect(readFileSync(db, 'utf8')).toBe('{"format":"user-group-mock/1","tenants": [');
    writeFileSync(db, '{"some":"other app"}');
    await expect(start({ db })).rejects.toThrow(/not a user-group-mock database/);
    expect(readFileSync(db, 'utf8')).toBe('{"some":"other app"}');
  });

  it('answers 500 and rolls back when a write fails, and the next write succeeds', async () => {
    const db = join(tempDir(), 'db.json');
    const files = new FaultyFileSystem();
    const server = await start({ db, files });
    await server.api('GET', { name: 'A', user_group_id: 'a' });
    files.fail('log-sync', { code: 'ENOSPC' });
    const failed = await server.api('GET', { name: 'B', user_group_id: 'b' });
    expect(failed.status).toBe(500);
    expect(failed.body).toMatchObject({ success: 0, error: { code: 'INTERNAL_ERROR' } });
    expect(failed.body.error.message).toMatch(/ENOSPC/);
    expect((await server.groups()).map((g) => g.provided_id)).toEqual(['a']);
    const retried = await server.api('GET', { name: 'B', user_group_id: 'b' });
    expect(retried.body.new_user_group).toBe(true);
    await server.close();
    const reopened = await start({ db });
    expect((await reopened.groups()).map((g) => g.provided_id).sort()).toEqual(['a', 'b']);
  });

  it('never answers a read with a change that is not durable yet', async () => {
    // The log's fdatasync for group "b" is held, then fails: a get-or-create of "b" sent meanwhile finds the
    // group in memory, but must not report it as existing before it is on disk, nor after it was rolled back.
    let release: (() => void) | undefined;
    let holding = false;
    const files: FileSystem = {
      ...nodeFileSystem,
      open: async (path, flags) => {
        const handle = await nodeFileSystem.open(path, flags);
        if (!path.includes('.log.')) return handle;
        const datasync = handle.datasync.bind(handle);
        handle.datasync = async () => {
          if (!holding) return datasync();
          await new Promise<void>((resolve) => {
            release = resolve;
          });
          throw Object.assign(new Error('EIO: injected fault, fdatasync'), { code: 'EIO' });
        };
        return handle;
      },
    };
    const server = await start({ db: join(tempDir(), 'db.json'), files });
    expect((await server.api('GET', { name: 'A', user_group_id: 'a' })).status).toBe(200);
    holding = true;
    const creating = server.api('GET', { name: 'B', user_group_id: 'b' });
    await vi.waitFor(() => expect(release).toBeDefined());
    const reading = server.api('GET', { name: 'B', user_group_id: 'b' });
    const existing = server.api('GET', { name: 'A', user_group_id: 'a' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    holding = false;
    release?.();
    const [created, read, other] = await Promise.all([creating, reading, existing]);
    expect(created.status).toBe(500);
    expect(read.status).toBe(500);
    expect(read.body.error.message).toMatch(/EIO/);
    // A read waits for every change in flight, since it may have seen one: the failed write fails it too.
    expect(other.status).toBe(500);
    expect((await server.groups()).map((g) => g.provided_id)).toEqual(['a']);
    const retried = await server.api('GET', { name: 'B', user_group_id: 'b' });
    expect(retried.body.new_user_group).toBe(true);
  });

  it('makes a new change log durable in its directory before acknowledging anything', async () => {
    const dir = tempDir();
    const events: string[] = [];
    const files: FileSystem = {
      ...nodeFileSystem,
      open: async (path, flags) => {
        const handle = await nodeFileSystem.open(path, flags);
        const kind = path === dir ? 'dir' : path.includes('.log.') ? 'log' : 'other';
        events.push(`open ${kind}`);
        const sync = handle.sync.bind(handle);
        handle.sync = async () => {
          events.push(`sync ${kind}`);
          return sync();
        };
        return handle;
      },
    };
    const server = await start({ db: join(dir, 'db.json'), files });
    await server.api('GET', { name: 'A', user_group_id: 'a' });
    const created = events.indexOf('open log');
    expect(created).toBeGreaterThanOrEqual(0);
    expect(events.slice(created)).toContain('sync dir');
  });
});
