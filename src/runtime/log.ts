import { product } from '../errors.js';

type LogCall = (fields: object, message?: string) => void;

/**
 * The part of pino the mock logs through, written out rather than picked from pino's types: the published
 * declarations must type-check in a project that has pino's types without `esModuleInterop`.
 */
export interface Log {
  readonly info: LogCall;
  readonly error: LogCall;
  readonly debug: LogCall;
  isLevelEnabled(level: string): boolean;
}

const silent: Log = {
  info: () => undefined,
  error: () => undefined,
  debug: () => undefined,
  isLevelEnabled: () => false,
};

/** Milliseconds since `started` (a `performance.now()` reading), to a tenth: a request's duration. */
export const elapsedMs = (started: number): number => Math.round((performance.now() - started) * 10) / 10;

/** The one log line of a request, with the codes of what it got wrong (logged at info, when info is on). */
export function logExchange(
  log: Log,
  exchange: { method: string; path: string; status: number; ms: number },
  diagnostics: readonly { readonly code: string }[],
): void {
  if (!log.isLevelEnabled('info')) return;
  const { method, path, status, ms } = exchange;
  const codes = diagnostics.map((d) => d.code);
  log.info(
    { method, path, status, ms, ...(codes.length ? { codes } : {}) },
    `${method} ${path} ${status} ${ms}ms`,
  );
}

/**
 * One JSON line per event on stderr, through pino. pino is loaded only when something will be logged, which keeps
 * it off the start-up path of a silent mock (CI fixtures, benchmarks).
 */
export function createLog(level: 'silent' | 'info' | 'debug'): Promise<Log> {
  if (level === 'silent') return Promise.resolve(silent);
  return import('pino').then(({ pino }) =>
    pino({ level, base: { name: product } }, pino.destination({ dest: 2, sync: false })),
  );
}
