import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  documentExamples,
  type ExamplePair,
  examplesFixtures,
  externalExamples,
} from '../../support/documentExamples.js';
import { type Answer, call, jsonHeaders, useMocks } from '../../support/http.js';

const { pairs, unpaired, ambiguous } = documentExamples();
const external = externalExamples();
const all = [...pairs, ...external];
const fixtureTokens = (
  JSON.parse(readFileSync(examplesFixtures, 'utf8')) as { groups: Array<{ token?: string }> }
).groups.flatMap((group) => (group.token === undefined ? [] : [group.token]));
const start = useMocks();

/** Sends the example's request as Specmatic does: its own headers over the JSON headers with the Customer key. */
const send = (url: string, example: ExamplePair): Promise<Answer> =>
  call(url, example.method, example.path, {
    headers: { ...jsonHeaders(), ...lowerCased(example.headers) },
    body: example.request,
  });

/**
 * The example's response as the mock must answer it. A token that no fixture holds is one the mock issues fresh
 * (a new group, a rotation): any token the mock has never handed out matches it.
 */
function expectAnswer(example: ExamplePair, answer: Answer): void {
  expect(answer.status).toBe(example.status);
  for (const [name, value] of Object.entries(lowerCased(example.responseHeaders)))
    expect(answer.headers[name]).toBe(value);
  const expected = structuredClone(example.response) as { user_group?: { token?: string } };
  const token = expected.user_group?.token;
  if (expected.user_group !== undefined && token !== undefined && !fixtureTokens.includes(token)) {
    expect(answer.body.user_group.token).toMatch(/^[0-9a-f]{64}$/);
    expect(fixtureTokens).not.toContain(answer.body.user_group.token);
    expected.user_group.token = answer.body.user_group.token;
  }
  expect(answer.body).toEqual(expected);
}

describe('the examples of openapi/user-group-service.yaml and fixtures/specmatic', () => {
  it('name each request example after a response example of its operation, as Specmatic pairs them', () => {
    expect(unpaired.filter((example) => example.side === 'request')).toEqual([]);
    expect(ambiguous).toEqual([]);
    expect(pairs.map((pair) => `${pair.method} ${pair.status} ${pair.name}`)).toEqual([
      'GET 200 created',
      'GET 200 existing',
      'PUT 200 rename',
      'PUT 200 replaceProperties',
      'PUT 404 unknownGroup',
      'POST 200 rotate',
      'POST 404 unknownToken',
    ]);
  });

  it('keep in fixtures/specmatic the error cases a request example cannot hold', () => {
    expect(external.map((e) => `${e.method} ${e.status} ${e.name}`)).toEqual([
      'GET 401 bearer',
      'POST 400 missingCurrentToken',
      'GET 400 missingUserGroupId',
      'PUT 400 nothingToUpdate',
    ]);
  });

  it('run every response example of the document: paired in an operation, or as the same external example', () => {
    const paired = new Set(pairs.map((pair) => pair.name));
    const responseOnly = unpaired.filter((e) => e.side === 'response' && !paired.has(e.name));
    expect(responseOnly.length).toBeGreaterThan(0);
    for (const example of responseOnly) {
      const twin = external.find((e) => e.name === example.name);
      expect({ name: example.name, status: twin?.status, response: twin?.response }).toEqual({
        name: example.name,
        status: example.status,
        response: example.value,
      });
    }
  });

  it('are all counted in the Specmatic summary the integrator guide shows', () => {
    const guide = readFileSync(new URL('../../../docs/integrators.md', import.meta.url), 'utf8');
    expect(guide).toContain(
      `Tests run: ${all.length}, Successes: ${all.length}, Failures: 0, WIP: 0, Errors: 0`,
    );
  });

  it.each(all.map((example) => [example.method, example.name, example] as const))(
    '%s "%s" answers as the example shows, on a mock seeded with fixtures/examples.json',
    async (_method, _name, example) => {
      const mock = await start({ fixtures: examplesFixtures });
      expectAnswer(example, await send(mock.url, example));
    },
  );

  it.each([
    ['in order', all],
    ['in reverse order', [...all].reverse()],
  ])('all answer as they show when sent one after another to one mock, %s', async (_order, sequence) => {
    const mock = await start({ fixtures: examplesFixtures });
    for (const example of sequence) expectAnswer(example, await send(mock.url, example));
  });
});

function lowerCased(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
