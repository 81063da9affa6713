import type { ProviderVerification, VerifyOutcome } from '../contract/verifyProvider.js';
import { product } from '../errors.js';

/** The exit code of each way `verify` ends, and its help line: the one table --help is printed from. */
export const verifyExitCodes = {
  honoured: { code: 0, help: 'the provider honours the contract: every interaction verified passed' },
  'not-honoured': { code: 1, help: 'it does not: at least one interaction failed' },
  refused: {
    code: 2,
    help: 'usage: a flag is missing or wrong, or the run needs one (--allow-reset, --admin-key, --api-key)',
  },
  unreachable: { code: 3, help: 'the provider or the state-change URL cannot be reached' },
  'missing-dependency': { code: 4, help: '@pact-foundation/pact is not installed (or does not load)' },
  'could-not-run': {
    code: 5,
    help: 'its tenant could not be made, a provider state could not be set up, Pact could not run, or the provider answered 429 (rate limited) or 503 (unavailable) during the run',
  },
} as const satisfies Record<Exclude<VerifyOutcome, 'interrupted'>, { code: number; help: string }>;

/** The help section listing the exit codes. */
export function exitCodesHelp(): string {
  const lines = Object.values(verifyExitCodes).map(({ code, help }) => `  ${code}  ${help}`);
  return `Exit codes (from 2 on, nothing was verified and no verdict is given):
${lines.join('\n')}
  130, 143  interrupted by SIGINT or SIGTERM, after removing its tenant
`;
}

/**
 * What `verify` prints after Pact's report: the skipped interactions, the failed ones, any warnings, and last one
 * summary line (the verdict with its counts, or the reason nothing was verified). Returns the exit code.
 */
export function reportVerification(
  result: ProviderVerification,
  providerBaseUrl: string,
  contract: string,
  write: { out: (text: string) => void; err: (text: string) => void },
): number {
  for (const skipped of result.skipped) write.out(`${product}: skipped: ${skipped}\n`);
  const failed = result.interactions?.failed ?? [];
  if (failed.length > 0)
    write.err(
      `${product}: ${failed.length === 1 ? 'this interaction' : `these ${failed.length} interactions`} failed:\n${failed.map((d) => `  - ${d}\n`).join('')}`,
    );
  const invalid = result.invalidRequests ?? [];
  if (invalid.length > 0)
    write.err(
      `${product}: the mock found ${invalid.length === 1 ? 'this request' : `these ${invalid.length} requests`} invalid (its journal's diagnostics):\n${invalid.map((line) => `  - ${line}\n`).join('')}`,
    );
  for (const warning of result.warnings) write.err(`${product}: warning: ${warning}\n`);
  const where = result.setUp === undefined ? '' : ` (${result.setUp})`;
  if (result.outcome === 'honoured' || result.outcome === 'not-honoured') {
    const passed = result.interactions?.passed ?? 0;
    const total = passed + failed.length + result.skipped.length;
    const verdict = result.outcome === 'honoured' ? `honours ${contract}` : `does not honour ${contract}`;
    const line = `${product}: verify: ${providerBaseUrl} ${verdict}; ${total} ${total === 1 ? 'interaction' : 'interactions'}: ${passed} passed, ${failed.length} failed, ${result.skipped.length} skipped${where}\n`;
    (result.outcome === 'honoured' ? write.out : write.err)(line);
    return verifyExitCodes[result.outcome].code;
  }
  const reason = (result.reason ?? result.outcome).replace(/\.$/, '');
  const end = result.outcome === 'interrupted' ? 'No verdict.' : 'Nothing was verified.';
  write.err(`${product}: verify: ${reason}${where}. ${end}\n`);
  return result.outcome === 'interrupted' ? 130 : verifyExitCodes[result.outcome].code;
}
