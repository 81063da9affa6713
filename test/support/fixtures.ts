import { readdirSync, readFileSync } from 'node:fs';
import type { RequestToValidate, ResponseToValidate } from '../../src/index.js';

export const fixturesDirectory = new URL('../../fixtures/', import.meta.url);

export interface Expectation {
  readonly code: string;
  readonly path: string;
}

export interface RequestCase {
  readonly name: string;
  readonly request: RequestToValidate & { readonly headers: Record<string, string> };
  readonly expect?: Expectation;
}

export interface RequestFixtures {
  readonly operationId: string;
  readonly valid: readonly RequestCase[];
  readonly invalid: ReadonlyArray<RequestCase & { readonly expect: Expectation }>;
}

export interface ResponseCase {
  readonly name: string;
  readonly response: ResponseToValidate;
  readonly expect?: Expectation;
}

const readJson = <T>(url: URL): T => JSON.parse(readFileSync(url, 'utf8')) as T;

/** Every `fixtures/requests/<operationId>.json`. */
export function requestFixtures(): RequestFixtures[] {
  const directory = new URL('requests/', fixturesDirectory);
  return readdirSync(directory)
    .filter((name) => name.endsWith('.json'))
    .map((name) => readJson<RequestFixtures>(new URL(name, directory)));
}

export function responseFixtures(): {
  valid: ResponseCase[];
  invalid: Array<ResponseCase & { expect: Expectation }>;
} {
  return readJson(new URL('responses/responses.json', fixturesDirectory));
}
