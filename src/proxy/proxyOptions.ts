import { constants } from 'node:fs';
import { access, readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { product } from '../errors.js';
import { setting } from '../runtime/options.js';

export { setting };

/**
 * An option of `createValidatingProxy` (a flag of `user-group-mock proxy`) that cannot work as given: a mistake in
 * how the proxy was started, found before it listens. The command line exits 2 on it.
 */
export class ProxyOptionError extends TypeError {
  constructor(message: string) {
    super(message);
    this.name = 'ProxyOptionError';
  }
}

/** The target's base URL, or a ProxyOptionError naming it. */
export function parseTarget(text: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '')
    throw new ProxyOptionError(
      `${product}: ${setting('target')} "${text}" is not an http(s) base URL; give the service's base, e.g. https://staging.example.com`,
    );
  return url;
}

/** The PEM bytes of `targetCa`, or a ProxyOptionError naming the file. */
export async function readCa(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    throw new ProxyOptionError(
      `${product}: cannot read ${path}, ${setting('targetCa', 'target-ca')} (${(error as Error).message}); give a PEM file of the certificate authority`,
    );
  }
}

/**
 * Refuses a recording path whose folder does not exist, is not a folder or cannot be written (and a path that is a
 * folder itself), before anything listens: the recording would otherwise be lost without a word.
 */
export async function checkRecordPath(path: string): Promise<void> {
  const folder = dirname(resolve(path));
  const refuse = (why: string, fix: string): never => {
    throw new ProxyOptionError(`${product}: cannot record to ${path}, ${setting('record')}: ${why}; ${fix}`);
  };
  const found = await stat(folder).catch((error: NodeJS.ErrnoException) => error);
  if (found instanceof Error)
    refuse(
      found.code === 'ENOENT'
        ? `the folder ${folder} does not exist`
        : `the folder ${folder} cannot be read (${found.code ?? found.message})`,
      `create it first (mkdir -p ${folder}) or record into an existing folder`,
    );
  else if (!found.isDirectory()) refuse(`${folder} is not a folder`, 'give a file path inside a folder');
  if ((await stat(path).catch(() => undefined))?.isDirectory() === true)
    refuse('it is a folder', `give a file inside it, e.g. ${resolve(path, 'recorded.json')}`);
  const writable = await access(folder, constants.W_OK | constants.X_OK).then(
    () => true,
    () => false,
  );
  if (!writable)
    refuse(
      `this user may not write in the folder ${folder}`,
      'make it writable (chmod u+w) or record into a folder this user may write',
    );
}
