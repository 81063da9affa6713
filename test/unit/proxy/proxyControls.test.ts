import { describe, expect, it } from 'vitest';
import { ReferenceModel } from '../../../src/model/referenceModel.js';
import { proxyControls } from '../../../src/proxy/proxyControls.js';
import { Journal, type JournalEntry } from '../../../src/store/journal.js';
import { journalRecord } from '../../support/journalRecord.js';

const token = (n: number): string => n.toString(16).padStart(64, '0');
/** A get-or-create of group `a` answered with token `n`, as the service would answer it. */
const getA = (n: number) =>
  [
    'getOrCreateUserGroup',
    { user_group_id: 'a', name: 'A' },
    200,
    {
      success: 1,
      new_user_group: n === 1,
      user_group: { team_id: 1, token: token(n), name: 'A', provided_id: 'a', properties: null },
    },
    'key',
  ] as const;

function controlsOver(capacity = 10) {
  const journal = new Journal(capacity);
  const model = new ReferenceModel({ knowledge: 'learning' });
  const controls = proxyControls({ journal, model, target: new URL('http://127.0.0.1:9'), timeout: 100 });
  return { journal, model, controls };
}

describe("the proxy's controls", () => {
  it('list the journal as a promise, filtered as GET /__admin/requests filters it', async () => {
    const { journal, controls } = controlsOver();
    journal.record(journalRecord('{"n":1}'));
    journal.record(journalRecord('{"n":2}', { diagnostics: [{ code: 'X', path: '/body', message: 'x' }] }));
    const listed = controls.requests();
    expect(listed).toBeInstanceOf(Promise);
    expect((await listed).map((e) => e.requestBody)).toEqual([{ n: 1 }, { n: 2 }]);
    expect((await controls.requests({ invalid: true })).map((e) => e.requestBody)).toEqual([{ n: 2 }]);
  });

  it('reject a query GET /__admin/requests would refuse with a MockControlError naming the problem', async () => {
    const { controls } = controlsOver();
    await expect(controls.requests({ limit: 0 })).rejects.toMatchObject({
      name: 'MockControlError',
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/limit must be >= 1/),
    });
  });

  it('count the entries dropped past the journal limit, and start again from 0 once cleared', async () => {
    const { journal, controls } = controlsOver(2);
    for (let i = 0; i < 5; i++) journal.record(journalRecord(String(i)));
    expect(await controls.droppedRequests()).toBe(3);
    await controls.clearRequests();
    expect([await controls.requests(), await controls.droppedRequests()]).toEqual([[], 0]);
  });

  it('tell a watcher of each entry journalled until it stops, and of the journal being emptied', async () => {
    const { journal, controls } = controlsOver();
    const heard: (JournalEntry | 'cleared')[] = [];
    const stop = await controls.watchRequests({
      entry: (entry) => heard.push(entry),
      cleared: () => heard.push('cleared'),
    });
    journal.record(journalRecord('1'));
    await controls.clearRequests();
    stop();
    journal.record(journalRecord('2'));
    expect(heard.map((e) => (e === 'cleared' ? e : e.requestBody))).toEqual([1, 'cleared']);
  });

  it('reset empties the journal and forgets the groups the reference model has seen', async () => {
    const { journal, model, controls } = controlsOver();
    model.judge(...getA(1));
    journal.record(journalRecord('1'));
    // Without a reset, another token for the same group is the provider's fault.
    const kept = controlsOver();
    kept.model.judge(...getA(1));
    expect(kept.model.judge(...getA(2)).map((d) => d.code)).toEqual(['PROVIDER_TOKEN_CHANGED']);

    await controls.reset();

    expect(await controls.requests()).toEqual([]);
    expect(model.judge(...getA(2))).toEqual([]);
  });
});
