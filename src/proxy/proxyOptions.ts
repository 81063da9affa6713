import { X509Certificate } from 'node:crypto';
import { constants } from 'node:fs';
import { access, readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { ApiKey, Environment } from '../domain/model.js';
import { product } from '../errors.js';
import { type OptionsOf, type Settings, setting, sharedOptions } from '../runtime/options.js';
import { apiKeysProblem, environmentMeant, schemeHint, unsetKeyHint } from '../runtime/serveOptions.js';
import { serviceBaseUrl } from '../spec/serviceBase.js';

/**
 * The options of `createValidatingProxy`: those of `proxyOptions` below, typed by their kind; their help is the
 * table's (and `--help`'s). `target` is required.
 */
export type ValidatingProxyOptions = OptionsOf<
  typeof proxyOptions,
  {
    /**
     * Receives what goes wrong with the recording while the proxy runs (a write failed; it works again), each once.
     * Default: a process warning on stderr.
     */
    readonly onWarning: (message: string) => void;
    /** The environment of API keys the client sends, declared (`--api-key KEY:Environment`): see `apiKeys` below. */
    readonly apiKeys: readonly ApiKey[];
  }
> & { readonly target: string };

/** Every setting of `proxy` and `createValidatingProxy`: the one table their flags, help, defaults and checks come from. */
export const proxyOptions = {
  target: {
    kind: 'string',
    nonEmpty: true,
    value: 'URL',
    help: 'base URL of the service to check (required), e.g. https://staging.example.com',
    required: "the base URL of the service to check (e.g. { target: 'https://staging.example.com' })",
  },
  host: sharedOptions.host,
  port: sharedOptions.port,
  apiKeys: {
    kind: 'custom',
    check: apiKeysProblem,
    flag: 'api-key',
    value: 'KEY:ENV',
    multiple: true,
    env: 'USER_GROUP_MOCK_API_KEYS',
    help: "KEY:Customer or KEY:Testing, repeatable (env: comma-separated): the environment of a key the client sends, so that an answer from the other environment is the provider's fault; without it, a key's environment is learnt from the answers",
    fromText: (texts) => texts.map(declaredKey),
  },
  strict: {
    kind: 'boolean',
    help: 'answers may carry no field the document does not name (the default)',
    flagOnly: "give mode: 'strict'",
  },
  lenient: {
    kind: 'boolean',
    help: 'answers may carry extra fields (a real service may add some)',
    flagOnly: "give mode: 'lenient'",
  },
  /** `strict`: answers may carry no field the document does not name; `lenient` allows them. */
  mode: { kind: 'oneOf', values: ['strict', 'lenient'], default: 'strict' },
  blockInvalid: {
    kind: 'boolean',
    help: "answer an invalid request with the mock's error instead of forwarding it",
    default: false,
  },
  record: {
    kind: 'string',
    nonEmpty: true,
    value: 'PATH',
    help: 'write what is seen, as it goes and on exit, as a fixtures file PATH (for serve --fixtures) and a Pact file beside it',
  },
  pactConsumer: {
    kind: 'string',
    nonEmpty: true,
    help: 'consumer name in the recorded Pact file',
    default: 'user-group-client',
  },
  pactProvider: {
    kind: 'string',
    nonEmpty: true,
    help: 'provider name in the recorded Pact file',
    default: 'user-group-service',
  },
  timeout: {
    kind: 'integer',
    min: 1,
    max: 3_600_000,
    help: 'ms the target has to answer before 504',
    default: 10_000,
  },
  targetCa: {
    kind: 'string',
    nonEmpty: true,
    value: 'FILE',
    help: "PEM file of a private certificate authority that signed the target's certificate",
  },
  bodyLimit: {
    ...sharedOptions.bodyLimit,
    help: 'largest request body in bytes; an answer may be 4 times it, at least 64 KiB (it repeats the group sent)',
  },
  logLevel: sharedOptions.logLevel,
  adminKey: sharedOptions.adminKey,
  onWarning: sharedOptions.onWarning,
  help: sharedOptions.help,
} as const satisfies Settings;

/**
 * An option of `createValidatingProxy` (a flag of `user-group-mock proxy`) that cannot work as given: a mistake in
 * how the proxy was started, found before it listens. The command line exits 2 on it.
 */
export class ProxyOptionError extends TypeError {
  override readonly name = 'ProxyOptionError';
}

/** `KEY:Customer` or `KEY:Testing`: the proxy holds no keys, so a key given says its environment. */
function declaredKey(text: string): ApiKey {
  const match = /^([^\s:]+):(Customer|Testing)$/.exec(text.trim());
  if (match === null)
    throw new Error(
      `${product}: --api-key "${text}" must be KEY:Customer or KEY:Testing (the environment the key belongs to), e.g. --api-key my-key:Testing${declaredKeyHint(text.trim())}`,
    );
  return { key: match[1] as string, environment: match[2] as Environment };
}

/**
 * What a `--api-key` that is not KEY:Environment most likely meant: the key with its `Authorization` scheme, an
 * empty key, or the environment misspelt.
 */
function declaredKeyHint(text: string): string {
  const scheme = schemeHint(text);
  if (scheme !== '') return `; ${scheme}`;
  const colon = text.lastIndexOf(':');
  if (colon < 0) return '';
  const [key, word] = [text.slice(0, colon), text.slice(colon + 1)];
  if (key === '') return `; the key before ":" is empty: ${unsetKeyHint}`;
  const meant = environmentMeant(word);
  return meant !== undefined && /^[^\s:]+$/.test(key) ? `; did you mean --api-key ${key}:${meant}?` : '';
}

/** The target's base URL, or a ProxyOptionError naming it. */
export function parseTarget(text: string): URL {
  const url = serviceBaseUrl(text, setting('target'));
  if (typeof url === 'string') throw new ProxyOptionError(`${product}: ${url}`);
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
  await access(folder, constants.W_OK | constants.X_OK).catch(() =>
    refuse(
      `this user may not write in the folder ${folder}`,
      'make it writable (chmod u+w) or record into a folder this user may write',
    ),
  );
}
