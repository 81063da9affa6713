import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import type {
  ProviderVerification,
  ProviderVerificationOptions,
} from '../../../src/contract/verifyProvider.js';

const verifyModule = new URL('../../../src/contract/verifyProvider.ts', import.meta.url).href;
const indexModule = new URL('../../../src/index.ts', import.meta.url).href;

// The child: verifyProvider with the options it is given, its result written as JSON on file descriptor 3.
const verifyChild = `
import { writeSync } from 'node:fs';
const { verifyProvider } = await import(process.env.VERIFY_MODULE);
const result = await verifyProvider(JSON.parse(process.env.VERIFY_OPTIONS));
writeSync(3, JSON.stringify(result));
`;

// The child: Pact's own Verifier, its states set up by contractStateHandlers against the given mock; whether
// verifyProvider resolved, written as JSON on file descriptor 3.
const pactVerifierChild = `
import { writeSync } from 'node:fs';
import { Verifier } from '@pact-foundation/pact';
const { contractStateHandlers } = await import(process.env.VERIFY_MODULE);
const { stateHandlersOf, ...options } = JSON.parse(process.env.VERIFY_OPTIONS);
const verifier = new Verifier({ ...options, stateHandlers: contractStateHandlers(stateHandlersOf) });
const passed = await verifier.verifyProvider().then(() => true, () => false);
writeSync(3, JSON.stringify({ passed }));
`;

/**
 * `verifyProvider` run in a child process, answering its result and the report Pact printed. Pact's native core
 * writes the report straight to the process's stdout, past any JavaScript hook: only a child's output can be
 * captured and asserted instead of landing in the middle of the test run. The options must be plain data (no
 * `stateHandlers` functions).
 */
export async function verifyInChild(
  options: ProviderVerificationOptions,
): Promise<{ result: ProviderVerification; report: string }> {
  const { result, report } = await runChild(verifyChild, verifyModule, options);
  return { result: result as ProviderVerification, report };
}

/**
 * Pact's `Verifier` run in a child process with `contractStateHandlers(stateHandlersOf)` as its state handlers:
 * whether the verification passed, and the report Pact printed (captured, as in `verifyInChild`).
 */
export async function pactVerifierInChild(options: {
  readonly providerBaseUrl: string;
  readonly pactUrls: readonly string[];
  readonly stateHandlersOf: string;
}): Promise<{ passed: boolean; report: string }> {
  const { result, report } = await runChild(pactVerifierChild, indexModule, {
    ...options,
    logLevel: 'error',
  });
  return { passed: (result as { passed: boolean }).passed, report };
}

async function runChild(
  code: string,
  module: string,
  options: object,
): Promise<{ result: unknown; report: string }> {
  const verifier = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', code], {
    env: {
      ...process.env,
      PACT_DO_NOT_TRACK: 'true',
      VERIFY_MODULE: module,
      VERIFY_OPTIONS: JSON.stringify(options),
    },
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  const stdout = collect(verifier.stdio[1]);
  const stderr = collect(verifier.stdio[2]);
  const result = collect(verifier.stdio[3] as Readable);
  const [exit] = await once(verifier, 'exit');
  const text = await result;
  if (exit !== 0 || text === '')
    throw new Error(`the verifying child exited with ${exit}:\n${await stdout}\n${await stderr}`);
  return {
    result: JSON.parse(text),
    report: stripVTControlCharacters(`${await stdout}${await stderr}`),
  };
}

async function collect(stream: Readable | null): Promise<string> {
  if (stream === null) return '';
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
}
