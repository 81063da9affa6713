import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validateRequest, validateResponse } from '../../../src/index.js';

/** The `{ code, path }` of each diagnostic the README prints after `call(` in its validator section, in order. */
function printed(call: string): { code: string; path: string }[] {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## The validator library'));
  const after = section.slice(section.indexOf(`\n${call}(`) + 1);
  const comment = after.slice(after.indexOf('\n// '), after.indexOf('\n\n'));
  return [...comment.matchAll(/\{ code: '(\w+)', path: '([^']+)'/g)].map(([, code = '', path = '']) => ({
    code,
    path,
  }));
}

describe("the README's validator example", () => {
  it('prints the diagnostics validateRequest gives, in their order', () => {
    const result = validateRequest({
      method: 'GET',
      path: '/api/user',
      headers: { authorization: 'Token my-key', 'content-type': 'application/json' },
      body: { name: 'Customer A', userGroupId: 'customer-a' },
    });
    expect(result.diagnostics.map(({ code, path }) => ({ code, path }))).toEqual(printed('validateRequest'));
  });

  it('prints the first diagnostic validateResponse gives', () => {
    const result = validateResponse(
      {
        method: 'POST',
        path: '/api/user',
        status: 200,
        body: { success: 1, user_group: { team_id: 1, name: 'Customer A' } },
      },
      { allowAdditionalProperties: false },
    );
    const shown = printed('validateResponse');
    expect(shown.length).toBeGreaterThan(0);
    expect(result.diagnostics.slice(0, shown.length).map(({ code, path }) => ({ code, path }))).toEqual(
      shown,
    );
  });
});
