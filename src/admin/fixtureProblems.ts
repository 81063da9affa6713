import { product } from '../errors.js';
import { checkAdminSchema } from './adminDocument.js';

/** How many bad entries of a fixtures file one message lists; the rest are counted. */
export const listedFixtureProblems = 20;

/**
 * Every entry of a fixtures file that breaks `SeedGroupRequest` (openapi/admin.yaml), each problem named by the
 * entry's place in the file and the field (`groups[2].environment must be …`), the first 20 listed and the rest
 * counted; undefined when every entry has the form of a group. One message, so that a file is mended in one pass.
 */
export function fixtureProblems(groups: readonly unknown[], path: string): string | undefined {
  const problems = groups.flatMap((seed, index) =>
    checkAdminSchema('/components/schemas/SeedGroupRequest', seed, `/groups/${index}`).map((d) =>
      d.message.replace(
        /^groups\/(\d+)(\S*)/,
        (_, i: string, rest: string) => `groups[${i}]${rest.replaceAll('/', '.')}`,
      ),
    ),
  );
  if (problems.length === 0) return undefined;
  const entries = new Set(problems.map((p) => /^groups\[\d+\]/.exec(p)?.[0])).size;
  const listed = problems.slice(0, listedFixtureProblems).map((p) => `\n  - ${p}`);
  const more = problems.length - listed.length;
  return `${product}: fixtures ${path}: ${entries === 1 ? '1 entry does' : `${entries} entries do`} not have the form of a group { "environment", "user_group_id", "name", ... } (SeedGroupRequest in openapi/admin.yaml); nothing was seeded. Mend ${entries === 1 ? 'it' : 'them'}:${listed.join('')}${more > 0 ? `\n  - … and ${more} more` : ''}`;
}
