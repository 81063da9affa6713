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
