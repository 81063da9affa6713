import { describe, expect, it } from 'vitest';
import { reportVerification } from '../../../src/cli/verifyReport.js';

/** What `reportVerification` writes, each stream as one text. */
function report(passed: number, failed: readonly string[], invalidRequests?: readonly string[]) {
  const written = { out: '', err: '' };
  const code = reportVerification(
    {
      outcome: failed.length === 0 ? 'honoured' : 'not-honoured',
      interactions: { passed, failed },
      skipped: [],
      warnings: [],
      ...(invalidRequests === undefined ? {} : { invalidRequests }),
    },
    'http://127.0.0.1:4010',
    'the pact my.json',
    { out: (text) => (written.out += text), err: (text) => (written.err += text) },
  );
  return { code, ...written };
}

describe('reportVerification', () => {
  it('counts one interaction in the singular', () => {
    const one = report(1, []);
    expect(one.code).toBe(0);
    expect(one.out).toBe(
      'user-group-mock: verify: http://127.0.0.1:4010 honours the pact my.json; 1 interaction: 1 passed, 0 failed, 0 skipped\n',
    );
  });

  it('lists one failed interaction in the singular and several in the plural', () => {
    expect(report(1, ['a get-or-create']).err).toContain('this interaction failed:\n  - a get-or-create\n');
    const two = report(0, ['a', 'b']);
    expect(two.code).toBe(1);
    expect(two.err).toContain('these 2 interactions failed:\n');
    expect(two.err).toContain('; 2 interactions: 0 passed, 2 failed, 0 skipped\n');
  });

  it('lists what the mock found wrong in the requests, before the verdict', () => {
    const line = 'GET /api/user 400: MISSING_FIELD at /body/name: body must have required field "name"';
    const one = report(0, ['a get-or-create'], [line]);
    expect(one.err).toContain(
      `user-group-mock: the mock found this request invalid (its journal's diagnostics):\n  - ${line}\n`,
    );
    expect(one.err.indexOf(line)).toBeLessThan(one.err.indexOf('does not honour'));
    expect(report(0, ['a', 'b'], [line, line]).err).toContain('the mock found these 2 requests invalid');
    expect(report(0, ['a']).err).not.toContain('the mock found');
  });
});
