import { groupKey } from '../domain/model.js';
import { product } from '../errors.js';
import type { Environment } from '../spec/types.js';
import { checkAdminSchema } from './adminDocument.js';

const listedFixtureProblems = 20;

/**
 * Every problem of a fixtures file that can be seen before seeding, in one message, so that a file is mended in one
 * pass: each entry that breaks `SeedGroupRequest` (openapi/admin.yaml), named by its place in the file and the field
 * (`groups[2].environment must be …`), and each of `repeats`. The first 20 are listed and the rest counted.
 */
export function fixtureProblems(groups: readonly unknown[], path: string): string | undefined {
  const malformed = groups.flatMap((seed, index) =>
    checkAdminSchema('/components/schemas/SeedGroupRequest', seed, `/groups/${index}`).map((d) =>
      d.message.replace(
        /^groups\/(\d+)(\S*)/,
        (_, i: string, rest: string) => `groups[${i}]${rest.replaceAll('/', '.')}`,
      ),
    ),
  );
  const problems = [...malformed, ...repeats(groups)];
  if (problems.length === 0) return undefined;
  const entries = new Set(problems.map((p) => /^groups\[\d+\]/.exec(p)?.[0])).size;
  const listed = problems.slice(0, listedFixtureProblems).map((p) => `\n  - ${p}`);
  const more = problems.length - listed.length;
  const what =
    malformed.length > 0
      ? `${entries === 1 ? '1 entry does' : `${entries} entries do`} not have the form of a group { "environment", "user_group_id", "name", ... } (SeedGroupRequest in openapi/admin.yaml) or repeat another's id, token or team_id`
      : `${entries === 1 ? '1 entry repeats' : `${entries} entries repeat`} another's id, token or team_id`;
  return `${product}: fixtures ${path}: ${what}; nothing was seeded. Mend ${entries === 1 ? 'it' : 'them'}:${listed.join('')}${more > 0 ? `\n  - … and ${more} more` : ''}`;
}

/**
 * The entries that repeat an earlier entry's `user_group_id` in one environment (unique there), its `token` or its
 * `team_id` (unique across the mock), each named with the entry it repeats. Found here, before seeding: seeding
 * the first and then skipping the second as "already stored" would drop it without a word (files merged from several
 * recordings are where this happens).
 */
function repeats(groups: readonly unknown[]): string[] {
  const found: string[] = [];
  const first = new Map<string, number>();
  for (const [index, entry] of groups.entries()) {
    if (entry === null || typeof entry !== 'object') continue;
    const seed = entry as Partial<Record<'environment' | 'user_group_id' | 'token' | 'team_id', unknown>>;
    /** Notes that this entry holds `key`, or says what it repeats when an earlier entry held it first. */
    const repeated = (key: string, said: (earlier: number) => string): void => {
      const earlier = first.get(key);
      if (earlier === undefined) first.set(key, index);
      else found.push(said(earlier));
    };
    if (typeof seed.environment === 'string' && typeof seed.user_group_id === 'string')
      repeated(
        `id:${groupKey(seed.environment as Environment, seed.user_group_id)}`,
        (earlier) =>
          `groups[${index}] and groups[${earlier}] are both "${seed.user_group_id}" in ${seed.environment}; an id is unique within an environment, keep one of them`,
      );
    if (typeof seed.token === 'string')
      repeated(
        `token:${seed.token}`,
        (earlier) =>
          `groups[${index}].token is groups[${earlier}]'s token too; a token identifies one group: change one, or leave it out to have one made`,
      );
    if (typeof seed.team_id === 'number')
      repeated(
        `team:${seed.team_id}`,
        (earlier) =>
          `groups[${index}].team_id ${seed.team_id} is groups[${earlier}]'s too; a team_id is unique across the mock: change one, or leave it out to have one drawn`,
      );
  }
  return found;
}
