import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useMocks } from '../../support/http.js';
import { useTempDir } from '../../support/tempDir.js';

const tempDir = useTempDir();
const example = new URL('../../../fixtures/groups.json', import.meta.url).pathname;
const start = useMocks();

describe('--fixtures', () => {
  it('seeds the groups of the file, keeping a given token that then rotates', async () => {
    const mock = await start({ fixtures: example });
    expect((await mock.groups()).map((g) => `${g.environment} ${g.provided_id} ${g.name}`)).toEqual([
      'Customer customer-a Customer A',
      'Testing customer-a Customer A (test)',
    ]);
    const token = '3f9c1e0b7a4d2c6e8f1a0b3c5d7e9f2a4c6e8a0b2d4f6a8c0e2a4c6e8f0a1b3c';
    const rotated = await mock.api('POST', { current_token: token });
    expect(rotated.body.user_group).toMatchObject({
      provided_id: 'customer-a',
      api_environment_tag: 'Customer',
    });
  });

  it('keeps groups already in the database as they are on a restart', async () => {
    const db = join(tempDir(), 'db.json');
    const first = await start({ db, fixtures: example });
    await first.api('PUT', { user_group_id: 'customer-a', name: 'Renamed' });
    await first.close();
    const second = await start({ db, fixtures: example });
    expect((await second.groups()).find((g) => g.environment === 'Customer')?.name).toBe('Renamed');
    expect(await second.groups()).toHaveLength(2);
  });

  it.each([
    ['is not JSON', '{"groups": [', /cannot read fixtures/],
    ['has no groups array', '{"group": []}', /"groups" is not an array/],
    [
      'holds an invalid group',
      '{"groups": [{"environment": "Production", "user_group_id": "a", "name": "A"}]}',
      /fixtures .*fixtures\.json: 1 entry does not have the form of a group .*\n {2}- groups\[0\]\.environment must be one of "Customer", "Testing"/,
    ],
    [
      'holds a misspelt field',
      '{"groups": [{"environment": "Customer", "userGroupId": "a", "name": "A"}]}',
      /groups\[0\] has unknown field "userGroupId".*did you mean "user_group_id"/,
    ],
    [
      'holds the same group twice',
      '{"groups": [{"environment": "Customer", "user_group_id": "x", "name": "Y"}, {"environment": "Testing", "user_group_id": "x", "name": "T"}, {"environment": "Customer", "user_group_id": "x", "name": "Z"}]}',
      /1 entry repeats another's id, token or team_id; nothing was seeded.*\n {2}- groups\[2\] and groups\[0\] are both "x" in Customer/,
    ],
    [
      'repeats ids, a token and a team_id beside a malformed entry',
      JSON.stringify({
        groups: [
          { environment: 'Customer', user_group_id: 'f', name: 'F', team_id: 7, token: 'a'.repeat(64) },
          { environment: 'Customer', user_group_id: 'f', name: 'F2' },
          { environment: 'Customer', user_group_id: 'g', name: 'G', team_id: 7 },
          { environment: 'Customer', user_group_id: 'g', name: 'G2', token: 'a'.repeat(64) },
          { environment: 'Prod', user_group_id: 'p', name: 'P' },
        ],
      }),
      /4 entries do not have the form of a group .* or repeat another's id, token or team_id; nothing was seeded\. Mend them:\n {2}- groups\[4\]\.environment must be one of .*\n {2}- groups\[1\] and groups\[0\] are both "f" in Customer.*\n {2}- groups\[2\]\.team_id 7 is groups\[0\]'s too.*\n {2}- groups\[3\] and groups\[2\] are both "g" in Customer.*\n {2}- groups\[3\]\.token is groups\[0\]'s token too/,
    ],
  ])('refuses to start when the file %s', async (_name, text, message) => {
    const path = join(tempDir(), 'fixtures.json');
    writeFileSync(path, text);
    await expect(start({ fixtures: path })).rejects.toThrow(message);
  });

  it('names every bad entry and its field at once, in the words of a file, listing the first 20', async () => {
    const path = join(tempDir(), 'fixtures.json');
    const bad = Array.from({ length: 25 }, (_, i) => ({ environment: 'Customer', user_group_id: `g${i}` }));
    const groups = [
      { environment: 'Customer', user_group_id: 'ok', name: 'OK' },
      ...bad,
      { environment: 'Prod', user_group_id: 'p', name: 'P' },
    ];
    writeFileSync(path, JSON.stringify({ groups }));
    const refused = await start({ fixtures: path }).then(
      () => 'started',
      (error: Error) => error.message,
    );
    const lines = refused.split('\n');
    expect(lines[0]).toContain(`fixtures ${path}: 26 entries do not have the form of a group`);
    expect(lines[0]).toContain('nothing was seeded');
    expect(lines.slice(1, 3)).toEqual([
      '  - groups[1] must have required field "name"',
      '  - groups[2] must have required field "name"',
    ]);
    expect(lines).toHaveLength(1 + 20 + 1);
    expect(lines.at(-1)).toBe('  - … and 6 more');
    expect(refused).not.toContain('the request');
  });
});
