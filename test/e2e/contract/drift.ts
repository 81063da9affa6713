import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { contractFile } from '../../../src/contract/publishedContract.js';
import { validateRequest, validateResponse } from '../../../src/pipeline/index.js';
import { operations } from '../../../src/spec/operations.js';

interface Interaction {
  description: string;
  request: { method: string; path: string; headers?: Record<string, string[]>; body?: { content?: unknown } };
  response: { status: number; body?: { content?: unknown } };
}

const interactions = (): Interaction[] =>
  (JSON.parse(readFileSync(contractFile, 'utf8')) as { interactions: Interaction[] }).interactions;

const detailPaths = (body: unknown): string[] =>
  ((body as { error?: { details?: { path: string }[] } }).error?.details ?? []).map((d) => d.path);

/** The committed contract never drifts from the OpenAPI document: every example passes the validators. */
export function contractDrift(): void {
  it('holds an interaction for every operation, and each error the client must handle', () => {
    const seen = new Set(interactions().map((i) => `${i.request.method} ${i.response.status}`));
    const expected = [
      ...operations().map((o) => `${o.method} 200`),
      'GET 400',
      'GET 401',
      'PUT 404',
      'POST 404',
    ];
    expect([...seen].sort()).toEqual([...new Set(expected)].sort());
  });

  it("is summed up in the README's Contracts section as it is: every success, and each error of each operation", () => {
    const names: Record<string, string> = { GET: 'get-or-create', PUT: 'update', POST: 'rotation' };
    const errorsOf = new Map<string, Set<number>>(Object.keys(names).map((method) => [method, new Set()]));
    for (const i of interactions())
      if (i.response.status !== 200) errorsOf.get(i.request.method)?.add(i.response.status);
    const byErrors = new Map<string, string[]>();
    for (const [method, statuses] of errorsOf) {
      const key = [...statuses].sort((a, b) => a - b).join(' and ');
      if (key !== '') byErrors.set(key, [...(byErrors.get(key) ?? []), names[method] ?? method]);
    }
    const phrases = [...byErrors].map(
      ([statuses, operations]) => `the ${statuses} of ${operations.join(' and of ')}`,
    );
    const sentence = `It covers every operation's success, ${phrases.slice(0, -1).join(', ')}, and ${phrases.at(-1)},`;
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    expect(readme).toContain(sentence);
  });

  it('has only responses that match the document, errors included', () => {
    const failures = interactions().flatMap((i) => {
      const { method, path } = i.request;
      const body = i.response.body?.content;
      const verdict = validateResponse({ method, path, status: i.response.status, body });
      return verdict.ok ? [] : [{ interaction: i.description, diagnostics: verdict.diagnostics }];
    });
    expect(failures).toEqual([]);
  });

  it('has valid requests, except the invalid one a 400 answers, which fails where the 400 says', () => {
    for (const i of interactions()) {
      const { method, path, headers } = i.request;
      const verdict = validateRequest({
        method,
        path,
        ...(headers ? { headers } : {}),
        body: i.request.body?.content,
      });
      if (i.response.status === 400) {
        expect(verdict.ok, i.description).toBe(false);
        expect(
          verdict.diagnostics.map((d) => d.path),
          i.description,
        ).toEqual(detailPaths(i.response.body?.content));
      } else {
        expect(verdict.diagnostics, i.description).toEqual([]);
      }
    }
  });
}
