import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Diagnostic, JournalEntry } from '../../../src/index.js';
import {
  documentExamples,
  type ExamplePair,
  examplesFixtures,
  externalExamples,
  externalExamplesDirectory,
} from '../../support/documentExamples.js';
import { customerKey, type Mock, startMock } from '../../support/http.js';
import {
  findJava,
  runSpecmatic,
  type SpecmaticExchange,
  type SpecmaticRun,
  withoutJava,
} from '../../support/specmatic.js';
import { type GeneratedDifference, generatedDifferences } from './specmaticDifferences.js';

const java = findJava();
const { pairs, unpaired } = documentExamples();
/** What Specmatic runs: the document's pairs of examples, then the external examples of fixtures/specmatic. */
const examples = [...pairs, ...externalExamples()];
const scenarioOf = (example: ExamplePair): string =>
  `Scenario: ${example.method} ${example.path} -> ${example.status} with the request from the example '${example.name}'`;

/** The value at a diagnostic path such as `/body/name` in a request body. */
const valueAt = (body: unknown, path: string): unknown =>
  (body as Record<string, unknown> | undefined)?.[path.replace(/^\/body\//, '')];

describe('Java for Specmatic', () => {
  it('is looked for in JAVA_HOME, and reported missing when there is none', () => {
    const lookup = findJava({ PATH: '/nonexistent', JAVA_HOME: '/nonexistent' });
    expect(lookup).toEqual({ ok: false, reason: expect.stringContaining('/nonexistent/bin/java') });
  });

  it.each([
    ['fail', { CI: 'true' }],
    ['skip', { CI: 'false' }],
    ['skip', {}],
  ] as const)('when missing, makes the Specmatic tests %s in the environment %o', (verdict, env) => {
    expect(withoutJava(env)).toBe(verdict);
  });
});

describe('Specmatic contract tests against the mock', { tags: ['slow'] }, () => {
  if (!java.ok) {
    it('need Java 17 or later', (context) => {
      if (withoutJava() === 'fail') {
        throw new Error(`user-group-mock: ${java.reason}. CI=true requires it: install Java 17 or later.`);
      }
      console.warn(`user-group-mock: the Specmatic contract tests are skipped: ${java.reason}.`);
      context.skip(java.reason);
    });
    return;
  }
  const command = java.command;

  describe('with the examples of the document and fixtures/specmatic (Specmatic as integrators run it)', () => {
    let mock: Mock;
    let run: SpecmaticRun;
    let requests: JournalEntry[];
    beforeAll(async () => {
      mock = await startMock({ fixtures: examplesFixtures });
      run = await runSpecmatic({
        java: command,
        baseUrl: mock.url,
        apiKey: customerKey,
        examples: [externalExamplesDirectory],
      });
      requests = await mock.requests();
    }, 180_000);
    afterAll(async () => {
      await mock?.close();
    });

    it('exits 0 with every test passed', () => {
      expect(run.exitCode, run.output.slice(-4000)).toBe(0);
      const count = examples.length;
      expect(run.summary).toEqual({ run: count, successes: count, failures: 0, errors: 0 });
      expect(run.report).toMatchObject({ tests: count, failures: 0, errors: 0, skipped: 0 });
    });

    it('runs each example once, and nothing else', () => {
      expect(pairs.length).toBeGreaterThan(0);
      expect(run.report.cases.filter((c) => c.failed)).toEqual([]);
      expect(run.report.cases.map((c) => c.name).sort()).toEqual(examples.map(scenarioOf).sort());
    });

    it('sends each example request as written, which the mock answers with the example status', () => {
      // Specmatic also asks for /swagger/v1/swagger.yaml (an API-coverage probe); only /api/user is compared.
      const sent = requests
        .filter((r) => r.path === '/api/user')
        .map((r) => ({ method: r.method, status: r.status, body: r.requestBody }));
      // Every request is journalled with the body it carried, one refused for its credential too.
      const expected = examples.map((e) => ({
        method: e.method,
        status: e.status,
        body: e.request,
      }));
      expect(sorted(sent)).toEqual(sorted(expected));
    });

    it('warns of exactly the inline examples an operation has no same-named counterpart for', () => {
      // A response in components/responses offers its examples to every operation that refers to it.
      const expected = unpaired.map(({ side, name }) => ({ side, name }));
      expect(sorted(run.ignoredExamples)).toEqual(sorted(expected));
    });
  });

  describe('with its own generated requests (resiliency tests, positive only)', () => {
    let mock: Mock;
    let run: SpecmaticRun;
    let requests: JournalEntry[];
    beforeAll(async () => {
      mock = await startMock({ fixtures: examplesFixtures });
      run = await runSpecmatic({
        java: command,
        baseUrl: mock.url,
        apiKey: customerKey,
        resiliencyTests: 'positiveOnly',
      });
      requests = await mock.requests();
    }, 180_000);
    afterAll(async () => {
      await mock?.close();
    });

    it('logs every test it reports', () => {
      expect(run.report.tests).toBeGreaterThan(examples.length);
      expect(run.report.errors).toBe(0);
      expect(run.exchanges).toHaveLength(run.report.tests);
      expect(run.exchanges.filter((e) => e.failed)).toHaveLength(run.report.failures);
      expect(run.exitCode).toBe(run.report.failures > 0 ? 1 : 0);
    });

    it('fails only where Specmatic is known to be wrong', () => {
      const unexplained = run.exchanges.filter(
        (exchange) => exchange.failed && !generatedDifferences.some((d) => decides(d, exchange)),
      );
      expect(unexplained).toEqual([]);
    });

    it.each(generatedDifferences.map((d) => [d.name, d] as const))(
      '%s: Specmatic is known to differ',
      (_name, difference) => {
        // The reason is part of the record: see specmaticDifferences.ts.
        expect(difference.reason).not.toBe('');
        const decided = run.exchanges.filter((exchange) => decides(difference, exchange));
        expect(decided.length).toBeGreaterThan(0);
        const always = run.exchanges.filter((exchange) => difference.always.test(exchange.scenario));
        expect(always.length).toBeGreaterThan(0);
        expect(always.filter((exchange) => !decides(difference, exchange))).toEqual([]);
        // The mock's journal agrees: one refusal of this kind per decided test.
        const refused = requests.filter((r) => r.diagnostics.some((d) => d.code === difference.ours.code));
        expect(refused).toHaveLength(decided.length);
      },
    );
  });
});

/** Whether a failed test is one the difference explains: Specmatic's expectation, the mock's answer, the value. */
function decides(difference: GeneratedDifference, exchange: SpecmaticExchange): boolean {
  const details = (exchange.responseBody as { error?: { details?: Diagnostic[] } } | undefined)?.error
    ?.details;
  return (
    exchange.failed &&
    exchange.expected === difference.specmatic &&
    exchange.status === difference.ours.status &&
    details !== undefined &&
    details.length > 0 &&
    details.every(
      (detail) =>
        detail.code === difference.ours.code &&
        difference.ours.paths.includes(detail.path) &&
        difference.offending.test(String(valueAt(exchange.requestBody, detail.path))),
    )
  );
}

function sorted<T>(values: readonly T[]): T[] {
  return [...values].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}
