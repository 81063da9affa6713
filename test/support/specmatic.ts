import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serviceDocumentUrl } from '../../src/spec/loadDocument.js';
import { tempDir } from './tempDir.js';

/** The Specmatic executable inside the npm package `specmatic`; its `npx specmatic` wrapper exits 0 on failures. */
export const specmaticJar = fileURLToPath(
  new URL('../../node_modules/specmatic/specmatic.jar', import.meta.url),
);

export type JavaLookup =
  | { readonly ok: true; readonly command: string; readonly major: number }
  | { readonly ok: false; readonly reason: string };

/** Finds Java 17 or later: `$JAVA_HOME/bin/java` when JAVA_HOME is set, else `java` on the PATH. */
export function findJava(env: NodeJS.ProcessEnv = process.env): JavaLookup {
  const home = env.JAVA_HOME;
  const command = home !== undefined && home !== '' ? join(home, 'bin', 'java') : 'java';
  const probe = spawnSync(command, ['-version'], { env, encoding: 'utf8', timeout: 30_000 });
  if (probe.error !== undefined || probe.status !== 0) {
    return {
      ok: false,
      reason: `no Java found (\`${command} -version\` failed); Specmatic needs Java 17 or later`,
    };
  }
  const version = /version "(\d+)(?:\.(\d+))?/.exec(`${probe.stderr}${probe.stdout}`);
  const first = Number(version?.[1]);
  const major = first === 1 ? Number(version?.[2]) : first;
  if (!(major >= 17)) {
    return {
      ok: false,
      reason: `${command} is Java ${major || 'of an unknown version'}; Specmatic needs Java 17 or later`,
    };
  }
  return { ok: true, command, major };
}

/** What a test does without Java: skips it on a developer's machine, fails it under `CI=true`. */
export function withoutJava(env: NodeJS.ProcessEnv = process.env): 'skip' | 'fail' {
  return env.CI === 'true' ? 'fail' : 'skip';
}

export interface SpecmaticCase {
  /** The scenario as Specmatic names it: `Scenario: GET /api/user -> 200 with the request from the example 'existing'`. */
  readonly name: string;
  readonly failed: boolean;
  /** Specmatic's reason when it failed (`… expected status 200 but response contained status 400`). */
  readonly message: string;
}

/** One test as Specmatic logs it on the console: the request it sent, the answer, and its verdict. */
export interface SpecmaticExchange {
  /** `+ve  Scenario: PUT /api/user -> 200 with the request from the example 'rename' where …` */
  readonly scenario: string;
  readonly failed: boolean;
  /** The status Specmatic expects, from the scenario (`200`, or `4xx` for negative tests). */
  readonly expected: string;
  readonly method: string;
  readonly requestBody: unknown;
  readonly status: number;
  readonly responseBody: unknown;
}

export interface SpecmaticRun {
  readonly exitCode: number | null;
  /** stdout and stderr together, in the order they arrived. */
  readonly output: string;
  /** The JUnit report's totals and cases. */
  readonly report: {
    tests: number;
    failures: number;
    errors: number;
    skipped: number;
    cases: SpecmaticCase[];
  };
  /** The console summary: `Tests run: N, Successes: N, Failures: N, WIP: N, Errors: N`. */
  readonly summary: { run: number; successes: number; failures: number; errors: number } | undefined;
  /** Each test's request and answer, in the order they ran. */
  readonly exchanges: readonly SpecmaticExchange[];
  /** `WARNING: Ignoring (request|response) example named X …` */
  readonly ignoredExamples: ReadonlyArray<{ side: 'request' | 'response'; name: string }>;
  readonly durationMs: number;
}

export interface SpecmaticOptions {
  readonly java: string;
  readonly baseUrl: string;
  /** The API key Specmatic sends through the document's `TokenAuth` scheme. */
  readonly apiKey: string;
  /** Directories of external examples (`--examples`). */
  readonly examples?: readonly string[];
  /** Specmatic's resiliency (generated) tests; off by default, as in Specmatic. */
  readonly resiliencyTests?: 'none' | 'positiveOnly' | 'all';
  readonly timeoutMs?: number;
}

const entities: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const unescapeXml = (text: string): string =>
  text.replace(/&(#\d+|lt|gt|amp|quot|apos);/g, (_all, entity: string) =>
    entity.startsWith('#') ? String.fromCodePoint(Number(entity.slice(1))) : (entities[entity] ?? ''),
  );

function parseJunit(xml: string): SpecmaticRun['report'] {
  const suite = /<testsuite\b([^>]*)>/.exec(xml)?.[1] ?? '';
  const attribute = (name: string): number =>
    Number(new RegExp(`\\b${name}="(\\d+)"`).exec(suite)?.[1] ?? NaN);
  const cases = [
    ...xml.matchAll(/<testcase\b[^>]*\bname="([^"]*)"[^>]*?(?:\/>|>([\s\S]*?)<\/testcase>)/g),
  ].map(([, name = '', body = '']) => {
    const failure = /<(?:failure|error)\b[^>]*\bmessage="([^"]*)"/.exec(body);
    return {
      name: unescapeXml(name).replace(/^.*? > contractTest\(\) > /, ''),
      failed: /<(?:failure|error)\b/.test(body),
      message: failure === null ? '' : unescapeXml(failure[1] ?? ''),
    };
  });
  return {
    tests: attribute('tests'),
    failures: attribute('failures'),
    errors: attribute('errors'),
    skipped: attribute('skipped'),
    cases,
  };
}

/** A body as Specmatic prints it: JSON indented by four spaces, or nothing. */
function parseBody(lines: readonly string[]): unknown {
  const text = lines
    .map((line) => line.replace(/^ {4}/, ''))
    .join('\n')
    .trim();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Specmatic's console log of each test: `----`, `Request to …`, the request, `Response at …`, the verdict. */
function parseExchanges(output: string): SpecmaticExchange[] {
  return output.split(/^-{20}$/m).flatMap((block) => {
    const lines = block.split('\n');
    const requestAt = lines.findIndex((line) => line.startsWith('  Request to '));
    const responseAt = lines.findIndex((line) => line.startsWith('  Response at '));
    const verdictAt = lines.findIndex((line) => / has (SUCCEEDED|FAILED)$/.test(line));
    if (requestAt < 0 || responseAt < requestAt || verdictAt < responseAt) return [];
    /** A message's body follows its first blank line (four spaces). */
    const bodyOf = (from: number, to: number): unknown => {
      const blank = lines.slice(from, to).indexOf('    ');
      return blank < 0 ? undefined : parseBody(lines.slice(from + blank + 1, to));
    };
    const [method = ''] = (lines[requestAt + 1] ?? '').trim().split(' ');
    const verdict = lines[verdictAt] ?? '';
    const scenario = verdict.replace(/ has (SUCCEEDED|FAILED)$/, '');
    return [
      {
        scenario,
        failed: verdict.endsWith(' has FAILED'),
        expected: / -> (\d{3}|4xx) /.exec(scenario)?.[1] ?? '',
        method,
        requestBody: bodyOf(requestAt + 1, responseAt),
        status: Number((lines[responseAt + 1] ?? '').trim().split(' ')[0]),
        responseBody: bodyOf(responseAt + 1, verdictAt),
      },
    ];
  });
}

/**
 * Runs `java -jar specmatic.jar test openapi/user-group-service.yaml` against a running mock, in a temp directory
 * (its config, HTML and JUnit reports go there, never into the repository), and returns what it reported.
 *
 * Specmatic gets a clean environment: telemetry off (`SPECMATIC_DISABLE_TELEMETRY`, else it looks up
 * insights.specmatic.io), and none of the CI variables (GITHUB_ACTIONS, …) from which it infers an Insights CI
 * build. The API key goes in through the `TokenAuth` variable, named after the document's security scheme.
 */
export async function runSpecmatic(options: SpecmaticOptions): Promise<SpecmaticRun> {
  const dir = await tempDir('specmatic');
  try {
    const config = [
      'version: 2',
      'disableTelemetry: true',
      'test:',
      '  resiliencyTests:',
      `    enable: ${options.resiliencyTests ?? 'none'}`,
    ];
    await writeFile(join(dir.path, 'specmatic.yaml'), `${config.join('\n')}\n`);
    const junit = join(dir.path, 'junit');
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: dir.path,
      ...(process.env.JAVA_HOME === undefined ? {} : { JAVA_HOME: process.env.JAVA_HOME }),
      LANG: 'C.UTF-8',
      SPECMATIC_DISABLE_TELEMETRY: 'true',
      TokenAuth: `Token ${options.apiKey}`,
    };
    const started = Date.now();
    const child = spawn(
      options.java,
      [
        // A short run: the C1 compiler alone and one GC thread start it several times faster on a busy machine.
        '-XX:TieredStopAtLevel=1',
        '-XX:+UseSerialGC',
        '-jar',
        specmaticJar,
        'test',
        fileURLToPath(serviceDocumentUrl),
        `--testBaseURL=${options.baseUrl}`,
        `--junitReportDir=${junit}`,
        ...(options.examples ?? []).map((directory) => `--examples=${directory}`),
      ],
      { cwd: dir.path, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: options.timeoutMs ?? 150_000 },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => resolve(code));
    });
    const durationMs = Date.now() - started;
    const reports = existsSync(junit) ? (await readdir(junit)).filter((name) => name.endsWith('.xml')) : [];
    if (reports.length !== 1) {
      throw new Error(
        `user-group-mock: Specmatic (exit ${exitCode}) wrote ${reports.length} JUnit reports, expected 1:\n${output.slice(-4000)}`,
      );
    }
    const report = parseJunit(await readFile(join(junit, reports[0] as string), 'utf8'));
    const totals = /Tests run: (\d+), Successes: (\d+), Failures: (\d+), WIP: \d+, Errors: (\d+)/.exec(
      output,
    );
    const summary =
      totals === null
        ? undefined
        : {
            run: Number(totals[1]),
            successes: Number(totals[2]),
            failures: Number(totals[3]),
            errors: Number(totals[4]),
          };
    const ignoredExamples = [
      ...output.matchAll(/WARNING: Ignoring (request|response) example named (\S+) for test or stub data/g),
    ].map(([, side, name]) => ({ side: side as 'request' | 'response', name: name as string }));
    return {
      exitCode,
      output,
      report,
      summary,
      exchanges: parseExchanges(output),
      ignoredExamples,
      durationMs,
    };
  } finally {
    await dir.remove();
  }
}
