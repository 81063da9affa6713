import { groupKey } from '../domain/model.js';
import type { GroupSeed } from '../domain/seed.js';

/** A group as the recording learnt it, with its environment decided. */
export interface RecordedGroup {
  readonly id: string;
  /** The newest answer that showed it and kept the contract; undefined when none did. */
  readonly seed: GroupSeed | undefined;
  /** The order of that answer among all the recording saw (higher: later). */
  readonly seen: number;
  /** Why the newest exchange about it was not recorded ("its answer broke the contract (…)"), if it was not. */
  readonly refused: string | undefined;
  /** Its environment is a guess (Customer): no answer to its API key said which (see `RecordingFile`). */
  readonly guessed?: boolean;
}

/** The groups of a fixtures file, and what the file says otherwise than the traffic, one sentence each, in its order. */
export interface LoadableGroups {
  readonly groups: readonly GroupSeed[];
  readonly notes: readonly string[];
  /** The ids of the groups written whose environment is a guess. */
  readonly guessed: readonly string[];
}

/** The fields no two groups of a fixtures file share, and what is said of one left out for a group seen later. */
const unique = {
  token: (holder: string): string =>
    `without its token, which ${holder}, seen later, also holds (tokens are unique): the mock gives it a new one`,
  team_id: (holder: string, team: unknown): string =>
    `without team_id ${team}, which ${holder}, seen later, also has (the service reused it): the mock gives it a fresh one`,
} as const;

/**
 * The recorded groups as `serve --fixtures` accepts them: what the mock's loader refuses is resolved in
 * favour of the group seen last, as the service stands now, each change said in `notes`. Groups keep the
 * order they were first seen in, those without a team_id last (the mock numbers them after the highest one
 * given, so none can take a number a later entry names).
 */
export function loadableGroups(recorded: readonly RecordedGroup[]): LoadableGroups {
  const notes = new Map<RecordedGroup, string[]>();
  const note = (group: RecordedGroup, text: string): void => {
    notes.set(group, [...(notes.get(group) ?? []), text]);
  };
  /** Per environment and id, whether the environment of the group kept is a guess. */
  const ids = new Map<string, boolean>();
  const holders = { token: new Map<unknown, string>(), team_id: new Map<unknown, string>() };
  const kept = new Map<RecordedGroup, GroupSeed>();
  // A group of known environment first, then the newest: a guess never displaces what an answer showed.
  const order = (group: RecordedGroup): number => (group.guessed === true ? 0 : 1e15) + group.seen;
  for (const group of [...recorded].sort((a, b) => order(b) - order(a))) {
    const name = JSON.stringify(group.id);
    const seed = group.seed;
    if (seed === undefined) {
      note(group, `${name} is left out: ${group.refused}`);
      continue;
    }
    if (group.refused !== undefined)
      note(group, `${name} is recorded as an earlier exchange showed it: in the newest, ${group.refused}`);
    const key = groupKey(seed.environment, seed.user_group_id);
    const twin = ids.get(key);
    if (twin !== undefined) {
      note(
        group,
        group.guessed !== true
          ? `${name} is recorded once in ${seed.environment}, as the newest answer showed it: two API keys of that environment got a group of this id, and an id is unique within an environment`
          : twin
            ? `${name} is recorded once, as the newest answer showed it: two API keys whose environment no answer showed got a group of this id`
            : `${name} is recorded once in ${seed.environment}, as an answer to a key of that environment showed it; another API key, whose environment no answer showed, also got a group of this id: if that key is a Testing key, add its group with "environment": "Testing"`,
      );
      continue;
    }
    ids.set(key, group.guessed === true);
    let loadable = seed;
    for (const field of ['token', 'team_id'] as const) {
      const holder = holders[field].get(seed[field]);
      if (holder === undefined) continue;
      const { [field]: _left, ...rest } = loadable;
      loadable = rest;
      note(group, `${name} is recorded ${unique[field](holder, seed[field])}`);
    }
    for (const field of ['token', 'team_id'] as const)
      if (loadable[field] !== undefined) holders[field].set(loadable[field], name);
    kept.set(group, loadable);
  }
  const inOrder = recorded.flatMap((group) => kept.get(group) ?? []);
  return {
    groups: [
      ...inOrder.filter((seed) => seed.team_id !== undefined),
      ...inOrder.filter((seed) => seed.team_id === undefined),
    ],
    notes: recorded.flatMap((group) => notes.get(group) ?? []),
    guessed: recorded.flatMap((group) => (group.guessed === true && kept.has(group) ? [group.id] : [])),
  };
}
