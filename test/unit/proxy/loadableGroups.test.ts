import { describe, expect, it } from 'vitest';
import type { GroupSeed } from '../../../src/domain/seed.js';
import { loadableGroups, type RecordedGroup } from '../../../src/proxy/loadableGroups.js';

const token = (n: number): string => n.toString(16).padStart(64, '0');
const seen = (id: string, order: number, extra: Partial<GroupSeed> = {}): RecordedGroup => ({
  id,
  seed: {
    environment: 'Customer',
    user_group_id: id,
    name: id,
    token: token(order),
    team_id: order,
    ...extra,
  },
  seen: order,
  refused: undefined,
});

describe('loadableGroups', () => {
  it('leaves a reused team_id out of the group seen earlier and writes it after every group that keeps one', () => {
    const { groups } = loadableGroups([
      seen('old', 1, { team_id: 7 }),
      seen('new', 2, { team_id: 7 }),
      seen('other', 3),
    ]);
    expect(groups.map((g) => [g.user_group_id, g.team_id])).toEqual([
      ['new', 7],
      ['other', 3],
      ['old', undefined],
    ]);
  });

  it('keeps the newest of two groups of one id in one environment, and both when their environments differ', () => {
    const { groups } = loadableGroups([
      seen('a', 1),
      seen('a', 2),
      seen('a', 3, { environment: 'Testing', user_group_id: 'a' }),
    ]);
    expect(groups.map((g) => [g.environment, g.token])).toEqual([
      ['Customer', token(2)],
      ['Testing', token(3)],
    ]);
  });

  it('never lets a group whose environment is a guess displace one an answer placed, and names only the guesses written', () => {
    const known = seen('x', 1);
    const guess = { ...seen('x', 2, { name: 'other key' }), guessed: true };
    const { groups, notes, guessed } = loadableGroups([known, guess]);
    expect(groups).toEqual([known.seed]);
    expect(guessed).toEqual([]);
    expect(notes).toEqual([
      '"x" is recorded once in Customer, as an answer to a key of that environment showed it; another API key, whose environment no answer showed, also got a group of this id: if that key is a Testing key, add its group with "environment": "Testing"',
    ]);
    const alone = loadableGroups([{ ...seen('y', 1), guessed: true }]);
    expect(alone.guessed).toEqual(['y']);
  });

  it('leaves out a group no answer showed within the contract, saying why', () => {
    const refused = {
      id: 'x',
      seed: undefined,
      seen: 0,
      refused: 'its answer broke the contract (INVALID_FORMAT at /body/user_group/token)',
    };
    expect(loadableGroups([refused, seen('y', 1)])).toEqual({
      groups: [seen('y', 1).seed],
      notes: ['"x" is left out: its answer broke the contract (INVALID_FORMAT at /body/user_group/token)'],
      guessed: [],
    });
  });
});
