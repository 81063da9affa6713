import { randomBytes } from 'node:crypto';
import { access, constants, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Environment } from '../domain/model.js';
import { product } from '../errors.js';
import { divergenceCodes } from '../model/divergences.js';
import { checkOptions, withDefaults } from '../runtime/options.js';
import { serviceBaseUrl } from '../spec/serviceBase.js';
import { type ConformKey, type ConformOptions, conformOptions, parseConformKey } from './conformOptions.js';
import type { ConformResult } from './conformResult.js';
import { jsonReport, junitReport } from './report.js';
import type { Run } from './sequences.js';
import { errorText, RunNotMadeError, Targets } from './targets.js';

export type { ConformOutcome, ConformResult } from './conformResult.js';

/** A option of `conformProvider` (a flag of `user-group-mock conform`) that cannot work as given. */
export class ConformOptionError extends TypeError {
  override readonly name = 'ConformOptionError';
}

/**
 * Model-based testing of a User Group Service: random sequences of get-or-create, update and rotation (fast-check's
 * `fc.commands`), each answer compared with the reference model's; a divergence is shrunk to its shortest sequence.
 * Every id it creates starts with `prefix`; the service has no delete, so those groups stay.
 */
export async function conformProvider(options: ConformOptions): Promise<ConformResult> {
  checkOptions('conformProvider', options, conformOptions, ConformOptionError);
  if (options.path !== undefined && options.seed === undefined)
    throw new ConformOptionError(
      `${product}: conform: --path replays a sequence of one seed; give it with the --seed that the failure printed beside it`,
    );
  if (options.path !== undefined) checkReplayPath(options.path, options.runs ?? conformOptions.runs.default);
  // A report that cannot be written is found before the run, not after every sequence ran.
  for (const file of [options.reportJunit, options.reportJson])
    if (file !== undefined) await checkWritable(file);
  const result = await runSequences(options);
  if (options.reportJunit !== undefined) await writeFile(options.reportJunit, junitReport(result));
  if (options.reportJson !== undefined) await writeFile(options.reportJson, jsonReport(result));
  return result;
}

async function runSequences(options: ConformOptions): Promise<ConformResult> {
  // Loaded here, not with the package: a program that imports the mock alone does not load fast-check.
  const { default: fc } = await import('fast-check');
  const { commandArbitraries, DivergenceFound, newRun } = await import('./sequences.js');
  const settings = withDefaults(conformOptions, options);
  const bases = (options.targets ?? []).map(baseUrl);
  const keys: ConformKey[] = (options.apiKeys ?? []).map((k) =>
    typeof k === 'string' ? parseConformKey(k) : k,
  );
  const repeated = keys.find((k, index) => keys.findIndex((other) => other.key === k.key) !== index);
  if (repeated !== undefined)
    throw new ConformOptionError(
      `${product}: conform: --api-key ${repeated.key} is given twice; a key has one environment: give each key once (two keys, one per environment, test the edges between them)`,
    );
  // Random per run, also after a --prefix given again: a replay never meets the groups an earlier run made.
  const prefix = `${settings.prefix ?? 'ugm-conform-'}${randomBytes(4).toString('hex')}-`;
  const seed = settings.seed ?? randomBytes(4).readInt32LE() | 0;
  const targets = new Targets(
    bases,
    keys.map((k) => k.key),
    settings.timeout,
    options.rateLimit,
  );
  const base = {
    targets: bases.map((url) => url.href),
    prefix,
    seed,
    runs: settings.runs,
    rules: divergenceCodes,
  };
  let calls = 0;
  try {
    let environments: Environment[];
    try {
      environments = await probe(targets, keys, prefix);
    } catch (error) {
      if (!(error instanceof RunNotMadeError)) throw error;
      return { ...base, outcome: 'could-not-run', reason: error.message, environments: [], calls };
    }
    let runNumber = 0;
    let broken: RunNotMadeError | undefined;
    let done = 0;
    const replay = settings.path === undefined ? undefined : splitReplay(settings.path);
    const property = fc.asyncProperty(
      fc.commands(commandArbitraries(keys.length), {
        maxCommands: settings.maxCalls,
        ...(replay?.commands === undefined ? {} : { replayPath: replay.commands }),
      }),
      async (commands) => {
        if (broken !== undefined) return; // the service went away: no more calls, the failure stands
        const run: Run = newRun(targets, environments, `${prefix}${runNumber++}-`);
        try {
          await fc.asyncModelRun(() => ({ model: {}, real: run }), commands);
        } catch (error) {
          if (error instanceof RunNotMadeError) broken = error;
          throw error;
        } finally {
          calls += run.calls.length;
          options.onProgress?.(Math.min(++done, settings.runs), settings.runs);
        }
      },
    );
    const check = () =>
      fc.check(property, {
        numRuns: settings.runs,
        seed,
        ...(replay === undefined ? {} : { path: replay.path }),
        reporter: undefined,
      });
    let details: Awaited<ReturnType<typeof check>> | undefined;
    try {
      details = await check();
    } catch (error) {
      // fast-check cannot follow a path that is not one of this seed's (cut short, of another run, or no path at all:
      // it refuses one it cannot read before the run starts, by throwing rather than rejecting).
      if (replay === undefined) throw error;
    }
    if (details === undefined || (replay !== undefined && calls === 0)) {
      const reason = `--path ${settings.path} does not replay a sequence of seed ${seed}: give the --seed and --path that a failure printed, together and whole`;
      return { ...base, outcome: 'could-not-run', reason, environments, calls };
    }
    if (broken !== undefined)
      return { ...base, outcome: 'could-not-run', reason: broken.message, environments, calls };
    if (!details.failed) return { ...base, outcome: 'conforms', environments, calls };
    const error = details.errorInstance;
    if (!(error instanceof DivergenceFound)) throw error;
    return {
      ...base,
      outcome: 'diverges',
      environments,
      calls,
      counterexample: {
        calls: error.calls,
        path: joinReplay(details.counterexamplePath ?? '', String(details.counterexample?.[0] ?? '')),
      },
    };
  } finally {
    await targets.close();
  }
}

/**
 * Asks each target once with each key (a get-or-create of `<prefix>probe`): a target that cannot be reached or a
 * key it refuses ends the run before it starts. A key's environment is read from an update's `api_environment_tag`:
 * learnt for a key given without one, and for a key given with one, a different tag ends the run (the key was most
 * likely given in the wrong environment, and every call with it would diverge).
 */
async function probe(targets: Targets, keys: readonly ConformKey[], prefix: string): Promise<Environment[]> {
  const environments: Environment[] = [];
  for (const [index, { environment }] of keys.entries()) {
    const body = { user_group_id: `${prefix}probe`, name: 'conform probe' };
    for (const [target, url] of targets.bases.entries()) {
      const call = await targets.call('GET', index, body, target);
      if (call.status === 401 || call.status === 403)
        throw new RunNotMadeError(
          `${url.href} refuses API key ${index + 1} (${call.status}): give a key of the service (--api-key KEY[:Environment])`,
        );
      if (call.status !== 200)
        throw new RunNotMadeError(
          `${url.href} answered ${call.status} to a get-or-create with API key ${index + 1} (${errorText(call.answer)})`,
        );
    }
    const updated = await targets.call('PUT', index, { ...body, name: 'conform probe' }, 0);
    const tag = (updated.answer as { user_group?: { api_environment_tag?: unknown } })?.user_group
      ?.api_environment_tag;
    const shown = tag === 'Customer' || tag === 'Testing' ? tag : undefined;
    if (environment !== undefined && shown !== undefined && shown !== environment)
      // Every call with the key would diverge the same way: a key given in the wrong environment, most likely.
      throw new RunNotMadeError(
        `API key ${index + 1} is given as a ${environment} key (--api-key KEY:${environment}), but an update with it answered api_environment_tag ${shown}: if it is a ${shown} key, give it as KEY:${shown} (or without an environment, for this probe to learn it); if it is a ${environment} key, the service places it in the wrong environment`,
      );
    const placed = environment ?? shown;
    if (placed === undefined)
      throw new RunNotMadeError(
        `an update with API key ${index + 1} answered no api_environment_tag, so its environment is unknown: give it as --api-key KEY:Customer or KEY:Testing`,
      );
    environments.push(placed);
  }
  return environments;
}

/**
 * The replay path printed: fast-check's path to the shrunk value, then `@` and the commands' own replay path (which
 * the commands print as `replayPath="…"`): fast-check needs both to rebuild the shrunk sequence.
 */
function joinReplay(path: string, commands: string): string {
  const replayPath = /replayPath="([^"]*)"/.exec(commands)?.[1];
  return replayPath === undefined || replayPath === '' ? path : `${path}@${replayPath}`;
}

/**
 * The form of a printed path, checked before the run: numbers (the failing run, then each shrinking step) and, after
 * `@`, the commands' own path. fast-check ignores a commands' path it cannot read, and walks to a run or shrinking
 * step however far: a path of no failure would pass, or run for hours.
 */
function checkReplayPath(path: string, runs: number): void {
  const form = /^(\d{1,9})((?::\d{1,9})*)(?:@[A-Za-z0-9+/]+:[A-Za-z0-9+/]*)?$/.exec(path);
  const steps = form?.[2]?.split(':').slice(1).map(Number) ?? [];
  const problem =
    form === null
      ? 'it is not a path a failure prints (numbers joined by ":", then "@" and the calls\' replay path)'
      : Number(form[1]) >= runs
        ? `its run, ${form[1]}, is past the ${runs} runs of this replay (give the --runs the failure's command gave)`
        : steps.some((step) => step > maxShrinkStep)
          ? `a shrinking step is past ${maxShrinkStep}, further than any shrinking goes`
          : undefined;
  if (problem !== undefined)
    throw new ConformOptionError(
      `${product}: conform: --path ${path} does not replay a sequence: ${problem}; give the --seed, --runs and --path that a failure printed, together and whole`,
    );
}

/** The furthest shrinking step a replay path may name. */
const maxShrinkStep = 100_000;

function splitReplay(text: string): { path: string; commands: string | undefined } {
  const at = text.indexOf('@');
  return at === -1
    ? { path: text, commands: undefined }
    : { path: text.slice(0, at), commands: text.slice(at + 1) };
}

async function checkWritable(file: string): Promise<void> {
  const folder = dirname(resolve(file));
  try {
    await access(folder, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConformOptionError(
      `${product}: conform: the report ${file} cannot be written: its folder ${folder} ${code === 'ENOENT' ? 'does not exist' : 'is not writable'}; create it or give another path`,
    );
  }
}

function baseUrl(text: string): URL {
  const url = serviceBaseUrl(text, 'target');
  if (typeof url === 'string') throw new ConformOptionError(`${product}: conform: ${url}`);
  return url;
}
