import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useMocks } from '../../support/http.js';

const startMock = useMocks();

/** Reads the `\uXXXX` and `\\` escapes of a header value written by the mock. */
const fromHeader = (header: string): string =>
  header.replace(/\\(u[0-9a-f]{4}|\\)/g, (_, e: string) =>
    e === '\\' ? '\\' : String.fromCharCode(Number.parseInt(e.slice(1), 16)),
  );

const range = (from: number, to: number) =>
  fc.integer({ min: from, max: to }).map((c) => String.fromCodePoint(c));
/** Text from every corner of Unicode: Latin-1, right-to-left scripts, combining marks, astral planes, anything. */
const anyText = fc
  .oneof(
    fc.string({ unit: range(0xa0, 0xff), minLength: 1, maxLength: 20 }),
    fc.string({ unit: range(0x0590, 0x06ff), minLength: 1, maxLength: 20 }),
    fc.string({ unit: fc.constantFrom('e', 'a', '\u0301', '\u0308', '\u200d', '\u202e'), minLength: 1 }),
    fc.string({ unit: range(0x10000, 0x10ffff), minLength: 1, maxLength: 10 }),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
    fc.constantFrom('grp-€', 'ÿ', '𝒜', 'שלום', '\\', '"'),
  )
  .filter((s) => s.isWellFormed());

describe('ids and names in any script', () => {
  it('never get a 5xx from any operation, and notices carry the id escaped to ASCII', async () => {
    const mock = await startMock();
    await fc.assert(
      fc.asyncProperty(anyText, anyText, anyText, async (id, name, other) => {
        const created = await mock.api('GET', { user_group_id: id, name });
        expect(created.status).toBeLessThan(500);
        const again = await mock.api('GET', { user_group_id: id, name: other });
        expect(again.status).toBeLessThan(500);
        // The id may exist from an earlier run: the stored name is what the second call is compared with.
        if (created.status === 200 && again.status === 200 && other !== created.body.user_group.name) {
          const notice = again.headers['x-mock-notice'] as string;
          expect(notice).toMatch(/^[\x20-\x7e]+$/);
          expect(fromHeader(notice)).toContain(`"${id}" already exists`);
        }
        const updated = await mock.api('PUT', { user_group_id: id, name: other });
        expect(updated.status).toBeLessThan(500);
        if (created.status === 200) {
          const rotated = await mock.api('POST', { current_token: created.body.user_group.token });
          expect(rotated.status).toBeLessThan(500);
        }
      }),
      { numRuns: 150 },
    );
    expect((await mock.requests()).filter((entry) => entry.status >= 500)).toEqual([]);
  });
});
