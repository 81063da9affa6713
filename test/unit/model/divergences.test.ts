import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { divergenceCodes, divergenceRules } from '../../../src/model/divergences.js';

/** The table of codes in one section of a document: each row's code and rule. */
function documentedRules(file: string, heading: string): [string, string][] {
  const doc = readFileSync(new URL(`../../../docs/${file}`, import.meta.url), 'utf8');
  const section = doc.split(`\n## ${heading}`)[1]?.split('\n## ')[0] ?? '';
  return [...section.matchAll(/^\| `([A-Z_]+)` \| (.*) \|$/gm)].map((match) => [
    match[1] as string,
    match[2] as string,
  ]);
}

describe('the divergence codes', () => {
  it.each([
    ['proxy.md', 'The behaviour rules'],
    ['conform.md', 'The rules checked'],
  ])('are listed in docs/%s, each once with its rule, and the table names no other', (file, heading) => {
    expect(documentedRules(file, heading)).toEqual(Object.entries(divergenceRules));
  });

  it('keep the codes the proxy has always given', () => {
    expect(divergenceCodes).toEqual(
      expect.arrayContaining([
        'PROVIDER_GROUP_CREATED_AGAIN',
        'PROVIDER_TOKEN_CHANGED',
        'PROVIDER_TOKEN_NOT_ROTATED',
        'PROVIDER_ROTATED_TOKEN_ACCEPTED',
        'PROVIDER_ENVIRONMENT_CHANGED',
      ]),
    );
  });
});
