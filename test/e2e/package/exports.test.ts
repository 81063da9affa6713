import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * Runs a script in a plain Node process that imports the package by its name, the way an installed user does
 * (Node resolves a package's own name through its `exports`, to the built `dist/`).
 */
function runAsUser(script: string): unknown {
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: new URL('../../../', import.meta.url),
    encoding: 'utf8',
  });
  return JSON.parse(output);
}

describe('the published package', () => {
  it('exports the validators from the built dist through its name', () => {
    const result = runAsUser(`
      import { validateRequest, validateResponse } from 'user-group-mock';
      const headers = { authorization: 'Token k', 'content-type': 'application/json' };
      const request = (body, auth = 'Token k') => validateRequest({ method: 'GET', path: '/api/user', headers: { ...headers, authorization: auth }, body });
      console.log(JSON.stringify({
        example: request({ name: 'Customer A', user_group_id: 'customer-a', mapping: { '40': '213' }, properties: { region: 'EU' } }).ok,
        missing: request({ name: 'A' }).diagnostics.map((d) => d.path),
        wrongType: request({ name: 'A', user_group_id: 1 }).diagnostics.map((d) => d.path),
        unknown: request({ name: 'A', user_group_id: 'a', userGroupId: 'a' }).diagnostics.map((d) => d.path),
        bearer: request({ name: 'A', user_group_id: 'a' }, 'Bearer k').diagnostics.map((d) => d.code + ' ' + d.path),
        rotate: validateResponse({ method: 'POST', path: '/api/user', status: 200, body: { success: 1, user_group: { team_id: 1, token: 42, name: 'A', provided_id: 'a', api_environment_tag: null } } }).diagnostics.map((d) => d.path),
      }));
    `);
    expect(result).toEqual({
      example: true,
      missing: ['/body/user_group_id'],
      wrongType: ['/body/user_group_id'],
      unknown: ['/body/userGroupId'],
      bearer: ['AUTH_BEARER /headers/authorization'],
      rotate: ['/body/user_group/token'],
    });
  });
});
