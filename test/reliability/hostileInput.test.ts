import { afterEach, describe, expect, it } from 'vitest';
import type { MockServer } from '../../src/index.js';
import { claimedFigures, readmeClaims } from '../support/documentedFigures.js';
import { startMock } from '../support/http.js';
import { hostileCases } from './hostileCases.js';
import { runHostileCase } from './hostileInput.js';

describe('hostile input over raw sockets', () => {
  it('has exactly as many cases as README.md states', () => {
    console.log(`hostile input: ${hostileCases.length} cases`);
    expect(hostileCases.length).toBe(claimedFigures(readmeClaims.hostileInputs)[0]);
  });

  const table = hostileCases.map((hostile) => ({
    hostile,
    name: hostile.name,
    answer: hostile.status === null ? 'no answer (the client left)' : `${hostile.status} ${hostile.code}`,
  }));
  it.each(table)('answers $name with $answer, keeps serving and changes nothing', async ({ hostile }) => {
    const outcome = await runHostileCase(hostile);
    expect(outcome.problems).toEqual([]);
  });
});

describe('ids are compared exactly as sent', () => {
  let server: MockServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('keeps the NFC and NFD forms of one name as two groups', async () => {
    const mock = await startMock();
    server = mock;
    const nfc = 'Caf\u00e9 Zoë'.normalize('NFC');
    const nfd = nfc.normalize('NFD');
    expect(nfc).not.toBe(nfd);
    const first = await mock.api('GET', { user_group_id: nfc, name: 'composed' });
    const second = await mock.api('GET', { user_group_id: nfd, name: 'decomposed' });
    expect([first.body.new_user_group, second.body.new_user_group]).toEqual([true, true]);
    expect(first.body.user_group.token).not.toBe(second.body.user_group.token);
    expect(first.body.user_group.team_id).not.toBe(second.body.user_group.team_id);
    expect(second.body.user_group.provided_id).toBe(nfd);
    expect((await mock.groups()).map((g) => g.provided_id).sort()).toEqual([nfc, nfd].sort());
  });

  it('treats ids such as __proto__, constructor and toString as ordinary ids', async () => {
    const mock = await startMock();
    server = mock;
    for (const id of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const created = await mock.api('GET', { user_group_id: id, name: id });
      expect(created.status).toBe(200);
      expect(created.body.new_user_group).toBe(true);
      expect(created.body.user_group.provided_id).toBe(id);
    }
    expect(await mock.groups()).toHaveLength(4);
  });
});
