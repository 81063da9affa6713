import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { providerCodes, TrafficRules } from '../../../src/proxy/trafficRules.js';

/** The codes of the table in docs/proxy.md's section on the traffic rules. */
function documentedCodes(): string[] {
  const doc = readFileSync(new URL('../../../docs/proxy.md', import.meta.url), 'utf8');
  const section = doc.split('\n## The traffic rules')[1]?.split('\n## ')[0] ?? '';
  return [...section.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((match) => match[1] as string);
}

const token = (n: number): string => n.toString(16).padStart(64, '0');
const rotation = (current: string, answered: string) => ({
  scope: 'key',
  operationId: 'rotateUserGroupToken',
  requestBody: { current_token: current },
  status: 200,
  responseBody: {
    success: 1,
    user_group: { provided_id: 'a', token: answered, api_environment_tag: 'Customer' },
  },
});

describe('the traffic rules', () => {
  it('are documented in docs/proxy.md, each code once, and the table names no other', () => {
    expect(documentedCodes().sort()).toEqual([...providerCodes].sort());
  });

  it('flag a rotation that answers the current token unchanged, and not one that answers a new token', () => {
    const rules = new TrafficRules();
    expect(rules.check(rotation(token(1), token(1))).map((d) => d.code)).toEqual([
      'PROVIDER_TOKEN_NOT_ROTATED',
    ]);
    expect(rules.check(rotation(token(1), token(2)))).toEqual([]);
  });

  it('keep the environment of a key in use when 10,000 other keys have been seen since it was first', () => {
    const rules = new TrafficRules();
    const update = (scope: string, environment: string) => ({
      scope,
      operationId: 'updateUserGroup',
      requestBody: { user_group_id: scope },
      status: 200,
      responseBody: { success: 1, user_group: { provided_id: scope, api_environment_tag: environment } },
    });
    rules.check(update('busy', 'Customer'));
    for (let n = 1; n < 10_000; n++) rules.check(update(`key ${n}`, 'Customer'));
    expect(rules.environmentOf('busy')).toBe('Customer');
    rules.check(update('one more', 'Customer'));
    expect(rules.environmentOf('busy')).toBe('Customer');
    expect(rules.environmentOf('key 1')).toBeUndefined();
    expect(rules.check(update('busy', 'Testing')).map((d) => d.code)).toEqual([
      'PROVIDER_ENVIRONMENT_CHANGED',
    ]);
  });
});
