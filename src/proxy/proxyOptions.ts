import { X509Certificate } from 'node:crypto';
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

/**
 * The PEM bytes of `targetCa`, or a ProxyOptionError naming the file: one that cannot be read, or that holds no
 * certificate Node can parse (every `BEGIN CERTIFICATE` block is checked).
 */
export async function readCa(path: string): Promise<Buffer> {
  const option = setting('targetCa', 'target-ca');
  let pem: Buffer;
  try {
    pem = await readFile(path);
  } catch (error) {
    throw new ProxyOptionError(
      `${product}: cannot read ${path}, ${option} (${(error as Error).message}); give a PEM file of the certificate authority`,
    );
  }
  const blocks = pem.toString('latin1').match(pemCertificate) ?? [];
  if (blocks.length === 0)
    throw new ProxyOptionError(
      `${product}: ${path}, ${option}, holds no PEM certificate (no "-----BEGIN CERTIFICATE-----" block); give the certificate authority's certificate in PEM (a DER file converts with: openssl x509 -inform der -in ca.der -out ca.pem)`,
    );
  for (const block of blocks)
    try {
      new X509Certificate(block);
    } catch (error) {
      throw new ProxyOptionError(
        `${product}: ${path}, ${option}, holds a certificate block that cannot be parsed (${(error as Error).message}); give the certificate authority's certificate in PEM`,
      );
    }
  return pem;
}

const pemCertificate = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

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
