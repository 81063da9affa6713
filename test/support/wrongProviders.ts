import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import type { Environment, Group, MockServer } from '../../src/index.js';

/** The keys of the mock the fronts stand before, and their environments. */
export const keys: Readonly<Record<Environment, string>> = {
  Customer: 'dev-customer-key',
  Testing: 'dev-testing-key',
};
const environmentOf = (key: string): Environment => (key === keys.Testing ? 'Testing' : 'Customer');

type Body = Record<string, unknown>;
interface Answer {
  status: number;
  body: Body;
}
interface Asked {
  readonly method: string;
  readonly key: string;
  readonly body: Body;
}

/** What a front can do: pass a call on to the mock (with any key), or read the mock's groups. */
interface Backend {
  pass(method: string, key: string, body: Body): Promise<Answer>;
  group(environment: Environment, id: string): Promise<Group | undefined>;
}

type Behaviour = (asked: Asked, backend: Backend) => Promise<Answer>;

const userGroup = (answer: Answer): Body => (answer.body.user_group ?? {}) as Body;
const isRecord = (value: unknown): value is Body =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Services that break one behaviour rule each, where no schema sees it: fronts on the mock, which answer as it
 * does except for that one rule. `seenByTraffic`: whether a proxy, learning key environments from the answers, can
 * see it in an ordinary client's traffic (a key reaching the wrong environment it can only when told the keys').
 */
export const wrongProviders: readonly {
  readonly name: string;
  readonly seenByTraffic: boolean;
  /** A fresh behaviour (some remember what they answered). */
  readonly make: () => Behaviour;
}[] = [
  {
    name: 'a get-or-create of a known id that creates the group again',
    seenByTraffic: true,
    make: () => async (asked, backend) => {
      const first = await backend.pass(asked.method, asked.key, asked.body);
      if (asked.method !== 'GET' || first.body.new_user_group !== false) return first;
      const id = asked.body.user_group_id as string;
      const again = await backend.pass('GET', asked.key, {
        ...asked.body,
        user_group_id: `${id} (again ${Date.now()})`,
      });
      return { ...again, body: { ...again.body, user_group: { ...userGroup(again), provided_id: id } } };
    },
  },
  {
    name: 'new_user_group true for a known group',
    seenByTraffic: true,
    make: () => async (asked, backend) => {
      const answer = await backend.pass(asked.method, asked.key, asked.body);
      return asked.method === 'GET' && answer.status === 200
        ? { ...answer, body: { ...answer.body, new_user_group: true } }
        : answer;
    },
  },
  {
    name: 'an update answered but not kept',
    seenByTraffic: true,
    make: () => async (asked, backend) => {
      if (asked.method !== 'PUT') return backend.pass(asked.method, asked.key, asked.body);
      const environment = environmentOf(asked.key);
      const old = await backend.group(environment, asked.body.user_group_id as string);
      if (old === undefined) return backend.pass(asked.method, asked.key, asked.body);
      const { user_group_id: _, mapping: __, ...fields } = asked.body;
      const { environment: ___, mapping: ____, ...shown } = old;
      return {
        status: 200,
        body: { success: 1, user_group: { ...shown, ...fields, api_environment_tag: environment } },
      };
    },
  },
  {
    name: 'properties merged instead of replaced',
    seenByTraffic: true,
    make: () => async (asked, backend) => {
      const old =
        asked.method === 'PUT'
          ? await backend.group(environmentOf(asked.key), asked.body.user_group_id as string)
          : undefined;
      const merged =
        old !== undefined && isRecord(old.properties) && isRecord(asked.body.properties)
          ? { ...asked.body, properties: { ...old.properties, ...asked.body.properties } }
          : asked.body;
      return backend.pass(asked.method, asked.key, merged);
    },
  },
  {
    name: 'a team_id that changes on update',
    seenByTraffic: true,
    make: () => async (asked, backend) => {
      const answer = await backend.pass(asked.method, asked.key, asked.body);
      if (asked.method !== 'PUT' || answer.status !== 200) return answer;
      const group = userGroup(answer);
      return {
        ...answer,
        body: { ...answer.body, user_group: { ...group, team_id: (group.team_id as number) + 1000 } },
      };
    },
  },
  {
    name: 'a rotated token that still works',
    seenByTraffic: true,
    make: () => {
      const replacedBy = new Map<string, string>();
      return async (asked, backend) => {
        let body = asked.body;
        if (asked.method === 'POST') {
          let current = body.current_token as string;
          while (replacedBy.has(current)) current = replacedBy.get(current) as string;
          body = { current_token: current };
        }
        const answer = await backend.pass(asked.method, asked.key, body);
        if (asked.method === 'POST' && answer.status === 200)
          replacedBy.set(body.current_token as string, userGroup(answer).token as string);
        return answer;
      };
    },
  },
  {
    name: 'a Testing key that reaches Customer groups',
    seenByTraffic: false,
    make: () => async (asked, backend) => {
      const answer = await backend.pass(asked.method, keys.Customer, asked.body);
      const group = userGroup(answer);
      return 'api_environment_tag' in group
        ? {
            ...answer,
            body: { ...answer.body, user_group: { ...group, api_environment_tag: environmentOf(asked.key) } },
          }
        : answer;
    },
  },
  {
    name: 'a new group given the token of another group',
    seenByTraffic: true,
    make: () => {
      let last: string | undefined;
      return async (asked, backend) => {
        const answer = await backend.pass(asked.method, asked.key, asked.body);
        const group = userGroup(answer);
        const earlier = last;
        if (typeof group.token === 'string') last = group.token;
        return answer.body.new_user_group === true && earlier !== undefined
          ? { ...answer, body: { ...answer.body, user_group: { ...group, token: earlier } } }
          : answer;
      };
    },
  },
  {
    name: 'provided_id echoed in lower case',
    seenByTraffic: true,
    make: () => async (asked, backend) => {
      const answer = await backend.pass(asked.method, asked.key, asked.body);
      const group = userGroup(answer);
      return typeof group.provided_id === 'string'
        ? {
            ...answer,
            body: { ...answer.body, user_group: { ...group, provided_id: group.provided_id.toLowerCase() } },
          }
        : answer;
    },
  },
  {
    name: 'a get-or-create of a known id that updates it',
    seenByTraffic: true,
    make: () => async (asked, backend) => {
      const answer = await backend.pass(asked.method, asked.key, asked.body);
      if (asked.method !== 'GET' || answer.body.new_user_group !== false) return answer;
      const { mapping: _, ...fields } = asked.body;
      const updated = await backend.pass('PUT', asked.key, fields);
      const { api_environment_tag: __, ...group } = userGroup(updated);
      return { ...answer, body: { ...answer.body, user_group: group } };
    },
  },
  {
    name: 'a rotation that answers the current token',
    seenByTraffic: true,
    make: () => async (asked, backend) => {
      const answer = await backend.pass(asked.method, asked.key, asked.body);
      if (asked.method !== 'POST' || answer.status !== 200) return answer;
      // The rotation is undone: the group keeps its token.
      return {
        ...answer,
        body: { ...answer.body, user_group: { ...userGroup(answer), token: asked.body.current_token } },
      };
    },
  },
];

export interface Front {
  readonly url: string;
  close(): Promise<void>;
}

/** A front on `mock` that answers with `behaviour` (each call to the front's /api/user), on 127.0.0.1 port 0. */
export async function startFront(mock: MockServer, behaviour: Behaviour): Promise<Front> {
  const backend: Backend = {
    pass: async (method, key, body) => {
      const answer = await request(`${mock.url}/api/user`, {
        method: method as 'GET',
        headers: { authorization: `Token ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: answer.statusCode, body: (await answer.body.json()) as Body };
    },
    group: async (environment, id) =>
      (await mock.groups(undefined, environment)).find((group) => group.provided_id === id),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const key = /^Token (.*)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Body;
      behaviour({ method: req.method ?? 'GET', key, body }, backend).then(
        (answer) => {
          res.writeHead(answer.status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(answer.body));
        },
        (error: Error) => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              success: 0,
              error: { code: 'INTERNAL_ERROR', message: error.message, details: [] },
            }),
          );
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
