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
