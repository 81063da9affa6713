/** `--rate-limit N/min`: at most N requests per caller in each minute; over it, 429 with Retry-After. */
export class RateLimiter {
  #windows = new Map<string, { start: number; count: number }>();

  constructor(
    readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** `undefined` when allowed, else the seconds to wait. */
  take(caller: string): number | undefined {
    const now = this.now();
    let window = this.#windows.get(caller);
    if (window === undefined || now - window.start >= 60_000) {
      window = { start: now, count: 0 };
      this.#windows.set(caller, window);
    }
    window.count++;
    return window.count <= this.perMinute
      ? undefined
      : Math.max(1, Math.ceil((window.start + 60_000 - now) / 1000));
  }

  /** Forgets the counts of one tenant's keys (its scope was reset or removed): its next request starts a window. */
  forgetTenant(tenant: string): void {
    const prefix = `${tenant}/`;
    for (const caller of this.#windows.keys()) if (caller.startsWith(prefix)) this.#windows.delete(caller);
  }
}

/**
 * `rateLimit` given in process: a whole number of requests per minute per API key (`rateLimit: 180`); the command
 * line's `--rate-limit 180/min` says the same, and a string of that form is told so. One rule for every command
 * that takes it (serve limits requests to it, conform paces its calls below it).
 */
export function rateLimitProblem(value: unknown): string | undefined {
  if (Number.isSafeInteger(value) && (value as number) >= 1) return undefined;
  const perMinute = typeof value === 'string' ? /^\s*(\d+)\s*\/\s*min\s*$/.exec(value)?.[1] : undefined;
  return `must be a whole number of requests per minute per API key, not ${JSON.stringify(value)}${perMinute === undefined ? ', e.g. rateLimit: 180' : `; give rateLimit: ${perMinute} (N/min is the command line's --rate-limit form)`}`;
}

export function parseRateLimit(text: string): number {
  const match = /^(\d+)\/min$/.exec(text.trim());
  const n = Number(match?.[1]);
  if (match === null || !Number.isInteger(n) || n < 1) {
    throw new Error(
      `user-group-mock: --rate-limit "${text}" is not of the form N/min (e.g. 180/min, as the real service documents)`,
    );
  }
  return n;
}
