import { product } from '../errors.js';

/** `user-group-mock verify`: verifies a provider against the published contract. */
export async function runVerify(
  _argv: readonly string[],
  _env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  process.stderr.write(`${product}: verify is not available in this build yet.\n`);
  return 2;
}
