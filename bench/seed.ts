import { send, tokenOf } from './client.js';
import { runLoad } from './load.js';
import { createNew } from './workloads.js';

/** Creates `${prefix}-0` ... one by one and returns their tokens (the pool for rotation chains). */
export async function seedTokens(url: string, prefix: string, count: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `${prefix}-${i}`;
    tokens.push(tokenOf(await send(url, 'GET', JSON.stringify({ name: `Group ${id}`, user_group_id: id }))));
  }
  return tokens;
}

/**
 * Creates `${prefix}-0` ... `${prefix}-${count - 1}` through HTTP with 10 connections, giving up after
 * `budgetSeconds`. Returns the seconds it took; throws with the reason when not all were created.
 */
export async function seedViaHttp(
  url: string,
  prefix: string,
  count: number,
  budgetSeconds: number,
): Promise<number> {
  const started = performance.now();
  const result = await runLoad({
    url,
    requests: createNew(prefix),
    seconds: budgetSeconds,
    maxRequests: count,
  });
  const seconds = (performance.now() - started) / 1_000;
  const created = result.requests - result.non2xx;
  if (created < count || result.errors > 0) {
    throw new Error(
      `seeding over HTTP created ${created} of ${count} groups in ${seconds.toFixed(0)} s ` +
        `(${result.non2xx} non-2xx, ${result.errors} errors)`,
    );
  }
  return seconds;
}
