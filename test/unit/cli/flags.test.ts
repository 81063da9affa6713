import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { serveHelp } from '../../../src/cli/args.js';
import { conformHelp } from '../../../src/cli/conform.js';
import { flagsOf, readFlags } from '../../../src/cli/flags.js';
import { proxyHelp } from '../../../src/cli/proxy.js';
import { verifyHelp, verifyOptions } from '../../../src/cli/verify.js';
import { conformOptions } from '../../../src/conform/conformOptions.js';
import { proxyOptions, type ValidatingProxyOptions } from '../../../src/proxy/proxyOptions.js';
import type { Settings } from '../../../src/runtime/options.js';
import { type MockServerOptions, serveOptions } from '../../../src/runtime/serveOptions.js';

const text = (path: string): string => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');
/** The README's synopsis of the commands. */
const synopsis = /```text\nuser-group-mock serve[\s\S]*?```/.exec(text('README.md'))?.[0] ?? '';

/** Each command: its settings, its --help, and the documents that list its flags. */
const commands: readonly [string, Settings, string, readonly string[]][] = [
  ['serve', serveOptions, serveHelp(), [synopsis]],
  ['proxy', proxyOptions, proxyHelp(), [synopsis, text('docs/proxy.md').split('## Flags')[1] ?? '']],
  ['verify', verifyOptions, verifyHelp(), [text('docs/integrators.md')]],
  ['conform', conformOptions, conformHelp(), [synopsis, text('docs/conform.md').split('## Flags')[1] ?? '']],
];

describe('the settings table of each command', () => {
  it.each(commands)(
    '%s: --help shows every flag with its value, default and environment variable',
    (_, settings, help) => {
      for (const flag of Object.values(flagsOf(settings))) {
        const fallback = flag.flagDefault ?? flag.default;
        const byDefault = fallback === undefined || fallback === false ? '' : ` (default ${fallback})`;
        const env = flag.env === undefined ? '' : `  [${flag.env}]`;
        const line = `      ${flag.help}${byDefault}${env}\n`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        expect(help).toMatch(
          new RegExp(`\n  --${flag.flag}${flag.kind === 'boolean' ? '' : ' \\S+'}\n${line}`),
        );
      }
    },
  );

  it.each(commands)('%s: the documents list every flag', (_, settings, __, documents) => {
    for (const flag of Object.keys(flagsOf(settings)).filter((name) => name !== 'help'))
      for (const document of documents) expect(document).toMatch(new RegExp(`--${flag}\\b`));
  });

  it('keeps the flags and environment variables the commands have always had', () => {
    const flags = (settings: Settings) =>
      Object.values(flagsOf(settings)).map(({ flag, env }) => `${flag}${env === undefined ? '' : ` ${env}`}`);
    expect(flags(serveOptions)).toEqual([
      'host USER_GROUP_MOCK_HOST',
      'port USER_GROUP_MOCK_PORT',
      'db USER_GROUP_MOCK_DB',
      'in-memory USER_GROUP_MOCK_IN_MEMORY',
      'api-key USER_GROUP_MOCK_API_KEYS',
      'fixtures USER_GROUP_MOCK_FIXTURES',
      'seed USER_GROUP_MOCK_SEED',
      'log-level USER_GROUP_MOCK_LOG_LEVEL',
      'body-limit USER_GROUP_MOCK_BODY_LIMIT',
      'headers-timeout USER_GROUP_MOCK_HEADERS_TIMEOUT',
      'request-timeout USER_GROUP_MOCK_REQUEST_TIMEOUT',
      'rate-limit USER_GROUP_MOCK_RATE_LIMIT',
      'journal-limit USER_GROUP_MOCK_JOURNAL_LIMIT',
      'admin-key USER_GROUP_MOCK_ADMIN_KEY',
      'help',
    ]);
    expect(flags(proxyOptions)).toEqual([
      'target USER_GROUP_MOCK_TARGET',
      'host USER_GROUP_MOCK_HOST',
      'port USER_GROUP_MOCK_PORT',
      'api-key USER_GROUP_MOCK_API_KEYS',
      'strict USER_GROUP_MOCK_STRICT',
      'lenient USER_GROUP_MOCK_LENIENT',
      'block-invalid USER_GROUP_MOCK_BLOCK_INVALID',
      'record USER_GROUP_MOCK_RECORD',
      'pact-consumer USER_GROUP_MOCK_PACT_CONSUMER',
      'pact-provider USER_GROUP_MOCK_PACT_PROVIDER',
      'timeout USER_GROUP_MOCK_TIMEOUT',
      'target-ca USER_GROUP_MOCK_TARGET_CA',
      'body-limit USER_GROUP_MOCK_BODY_LIMIT',
      'log-level USER_GROUP_MOCK_LOG_LEVEL',
      'admin-key USER_GROUP_MOCK_ADMIN_KEY',
      'help',
    ]);
    expect(flags(verifyOptions)).toEqual([
      'provider-base-url',
      'api-key',
      'testing-api-key',
      'state-setup-url',
      'admin-key USER_GROUP_MOCK_ADMIN_KEY',
      'pact USER_GROUP_MOCK_PACT',
      'allow-reset',
      'help',
    ]);
  });

  it('names every in-process option, and only those, besides the flags of the command line alone', () => {
    type Options<S> = { [K in keyof S]: S[K] extends { readonly flagOnly: string } ? never : K }[keyof S];
    expectTypeOf<Options<typeof serveOptions>>().toEqualTypeOf<keyof MockServerOptions>();
    expectTypeOf<Options<typeof proxyOptions>>().toEqualTypeOf<keyof ValidatingProxyOptions>();
    const optionNames = (settings: Settings) =>
      Object.keys(settings).filter((name) => settings[name]?.flagOnly === undefined);
    expect(optionNames(serveOptions)).toContain('compactAfter');
    expect(optionNames(proxyOptions)).toContain('mode');
    expect(optionNames(proxyOptions)).not.toContain('lenient');
  });
});

describe('readFlags', () => {
  it('takes the flag before its environment variable, ignores an empty variable, and fills the defaults', () => {
    const env = { USER_GROUP_MOCK_PORT: '5000', USER_GROUP_MOCK_BODY_LIMIT: '', USER_GROUP_MOCK_HOST: '::1' };
    const { options, source } = readFlags('serve', serveOptions, ['--port', '6000'], env);
    expect(options).toMatchObject({ port: 6000, host: '::1', bodyLimit: 1024 * 1024, logLevel: 'info' });
    expect([source('port'), source('host'), source('bodyLimit')]).toEqual(['flag', 'env', undefined]);
  });

  it.each([
    [['--port', '65536'], 'user-group-mock: --port must be an integer from 0 to 65535, not "65536"'],
    [['--log-level', 'loud'], 'user-group-mock: --log-level must be silent, info or debug, not "loud"'],
    [
      ['--body-limit'],
      `user-group-mock: --body-limit needs a value: --body-limit N (a value that starts with a dash goes as --body-limit=VALUE). Run "user-group-mock serve --help" for the flags.`,
    ],
    [['--port', '--in-memory'], 'user-group-mock: --port needs a value: --port N'],
  ])('refuses %j, naming the flag and the fix', (argv, message) => {
    expect(() => readFlags('serve', serveOptions, argv, {})).toThrow(message);
  });

  it('names the word a mistyped flag value most likely meant, as the in-process option does', () => {
    expect(() => readFlags('serve', serveOptions, ['--log-level', 'debgu'], {})).toThrow(
      'user-group-mock: --log-level must be silent, info or debug, not "debgu"; did you mean "debug"?',
    );
  });
});
