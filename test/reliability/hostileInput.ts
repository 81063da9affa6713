import { readFile } from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';
import { Client } from 'undici';
import { createMockServer } from '../../src/index.js';
import { memoryGroups } from '../support/dbFiles.js';
import { answerProblems, apiRequest, isNewGroup, send, userGroupOf } from '../support/http.js';
import { exchange } from '../support/rawHttp.js';
import { tempDir } from '../support/tempDir.js';
import { type HostileCase, hostileTimeouts } from './hostileCases.js';

export interface HostileOutcome {
  readonly problems: readonly string[];
  readonly status: number | null;
}

/**
 * Runs one case on a fresh server (a database file, small timeouts) holding one group, then checks: the answer
 * (status, code, envelope, timing), that the server still serves that group unchanged, and that neither memory
 * nor the change log changed.
 */
export async function runHostileCase(hostile: HostileCase): Promise<HostileOutcome> {
  const dir = await tempDir('hostile');
  const server = await createMockServer({ db: dir.db, ...hostileTimeouts });
  const client = new Client(server.url);
  const sentinel = apiRequest('getOrCreateUserGroup', { user_group_id: 'sentinel', name: 'Sentinel' });
  const problems: string[] = [];
  try {
    const created = await send(client, sentinel);
    const token = String(userGroupOf(created).token);
    const before = await memoryGroups(server);
    const logBefore = await readFile(`${dir.db}.log.1`);

    const result = await exchange(server.port, hostile.pieces(token), {
      timeoutMs: 8000,
      expect: 1 + (hostile.more?.length ?? 0),
    });
    const [first, ...rest] = result.responses;
    if (hostile.status === null) {
      if (first !== undefined) problems.push(`expected no answer, got ${first.status}`);
    } else if (first === undefined) {
      problems.push(`no answer (${result.ended} after ${result.sent} of ${result.planned} bytes)`);
    } else {
      const body = first.body as { success?: unknown; error?: { code?: unknown } } | undefined;
      if (first.status !== hostile.status)
        problems.push(`status ${first.status}, expected ${hostile.status}: ${first.text.slice(0, 300)}`);
      if (body?.success !== 0) problems.push(`success is ${String(body?.success)}, expected 0`);
      if (body?.error?.code !== hostile.code)
        problems.push(`code ${String(body?.error?.code)}, expected ${hostile.code}`);
      problems.push(
        ...answerProblems(hostile.method ?? 'GET', hostile.path ?? '/api/user', first.status, first.body),
      );
      for (const [name, value] of Object.entries(hostile.headers ?? {}))
        if (first.headers[name] !== value)
          problems.push(`header ${name} is ${first.headers[name]}, expected ${value}`);
      if (hostile.answersEarly && result.sentBeforeAnswer >= result.planned)
        problems.push(`answered only after all ${result.planned} bytes were sent`);
      if (
        hostile.within &&
        (result.firstByteMs < hostile.within[0] || result.firstByteMs > hostile.within[1])
      )
        problems.push(
          `answered after ${Math.round(result.firstByteMs)} ms, expected ${hostile.within.join('-')} ms`,
        );
      const statuses = rest.map((r) => r.status);
      if (!isDeepStrictEqual(statuses, [...(hostile.more ?? [])]))
        problems.push(`further answers ${statuses.join(',')}, expected ${(hostile.more ?? []).join(',')}`);
    }

    const again = await send(client, sentinel);
    if (again.status !== 200 || isNewGroup(again) !== false || userGroupOf(again).token !== token)
      problems.push(
        `the server no longer serves the existing group: ${again.status} ${again.text.slice(0, 200)}`,
      );
    if (!isDeepStrictEqual(await memoryGroups(server), before)) problems.push('the groups in memory changed');
    if (!(await readFile(`${dir.db}.log.1`)).equals(logBefore)) problems.push('the change log changed');
    return { problems, status: first?.status ?? null };
  } finally {
    await client.close();
    await server.close();
    await dir.remove();
  }
}
