import { StoreUnavailableError } from '../store.js';

const connectionErrors = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
]);

/**
 * Whether an error from the driver means the database is out of reach rather than a mistake in a statement:
 * a socket error, a connection that ended or timed out, a SQLSTATE of class 08 (connection exception) or 57P
 * (the server shutting down or starting up), or a new connection refused while serving: class 28 (the user or
 * password no longer accepted), 3D000 (the database dropped) or 53300 (too many connections).
 */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    (connectionErrors.has(code) ||
      code.startsWith('08') ||
      code.startsWith('57P') ||
      code.startsWith('28') ||
      code === '3D000' ||
      code === '53300')
  )
    return true;
  return /Connection terminated|connection timeout|timeout exceeded|Client has encountered a connection error|not queryable/i.test(
    error.message,
  );
}

/** The error to throw for what the driver threw: unavailable as `StoreUnavailableError`, anything else as it is. */
export const classified = (error: unknown): unknown =>
  isUnavailable(error) ? new StoreUnavailableError(error as Error) : error;
