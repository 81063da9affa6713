import type autocannon from 'autocannon';
import { GET_BODY, PATH } from './config.js';

type Requests = autocannon.Request[];

/** A request whose body is rebuilt before every send (autocannon recomputes Content-Length). */
function varying(method: string, body: () => string): Requests {
  return [{ method, path: PATH, setupRequest: (request) => ({ ...request, body: body() }) }];
}

/** GET get-or-create of the group the readiness probe already created. */
export function getExisting(): Requests {
  return [{ method: 'GET', path: PATH, body: GET_BODY }];
}

/** GET get-or-create with a new `user_group_id` per request: `${prefix}-0`, `${prefix}-1`, ... */
export function createNew(prefix: string): Requests {
  let next = 0;
  return varying('GET', () => {
    const id = `${prefix}-${next++}`;
    return JSON.stringify({ name: `Group ${id}`, user_group_id: id });
  });
}

/**
 * PUT renaming a random one of `${prefix}-0` ... `${prefix}-${count - 1}`. Never `customer-a`: the get-or-create rows
 * read that group with the name `Customer A`, and a renamed group would make each of those answers carry a notice
 * (`x-mock-notice`, the name differs), which is another answer than the ceiling's.
 */
export function update(prefix: string, count: number): Requests {
  let next = 0;
  return varying('PUT', () => {
    const id = `${prefix}-${Math.floor(Math.random() * count)}`;
    return JSON.stringify({ user_group_id: id, name: `Renamed ${next++}` });
  });
}

/**
 * POST rotations as chains: each request takes a current token from `pool` and each 200 puts the new token
 * back, so a pool a little larger than the connection count lasts for the whole run. An empty pool (after
 * failures) sends an unknown token, which shows up as non-2xx.
 */
export function rotate(pool: string[]): Requests {
  return [
    {
      method: 'POST',
      path: PATH,
      setupRequest: (request) => ({
        ...request,
        body: JSON.stringify({ current_token: pool.shift() ?? '0'.repeat(64) }),
      }),
      onResponse: (status, body) => {
        if (status !== 200) return;
        const token = (JSON.parse(body) as { user_group?: { token?: string } }).user_group?.token;
        if (token) pool.push(token);
      },
    },
  ];
}
