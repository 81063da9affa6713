import { auth, customerKey, json, type Probe, seeded, type Verdict } from './prismProbes.js';

/** A request where Prism is known to answer differently, and why. Asserted as is, so a change in Prism shows. */
export interface KnownDifference extends Probe {
  readonly prism: Verdict;
  readonly ours: Verdict;
  readonly reason: string;
}

const get = { name: 'Customer A', user_group_id: 'customer-a' };
const presenceOnly =
  'Prism checks only that an apiKey header is present; it knows no keys and no Token scheme';
const noBodyRules =
  "Prism validates the parsed body against the schema only; the document's body rules beyond JSON Schema are ours";

export const knownDifferences: readonly KnownDifference[] = [
  {
    name: 'an unknown API key',
    method: 'GET',
    headers: auth('Token not-a-key'),
    json: get,
    prism: 'accepted',
    ours: 'unauthorized',
    reason: presenceOnly,
  },
  {
    name: 'the Bearer scheme',
    method: 'GET',
    headers: auth(`Bearer ${customerKey}`),
    json: get,
    prism: 'accepted',
    ours: 'unauthorized',
    reason: presenceOnly,
  },
  {
    name: 'the Basic scheme',
    method: 'GET',
    headers: auth('Basic dXNlcjpwYXNz'),
    json: get,
    prism: 'accepted',
    ours: 'unauthorized',
    reason: presenceOnly,
  },
  {
    name: 'the scheme word without a key',
    method: 'GET',
    headers: auth('Token'),
    json: get,
    prism: 'accepted',
    ours: 'unauthorized',
    reason: presenceOnly,
  },
  {
    name: 'a user group token as the API key',
    method: 'GET',
    headers: auth(`Token ${seeded.token}`),
    json: get,
    prism: 'accepted',
    ours: 'unauthorized',
    reason: presenceOnly,
  },
  {
    name: 'two Authorization headers',
    method: 'GET',
    headers: { authorization: [`Token ${customerKey}`, `Token ${customerKey}`], 'content-type': json },
    json: get,
    prism: 'accepted',
    ours: 'invalid',
    reason: `${presenceOnly}; we refuse an ambiguous credential (AUTH_DUPLICATE)`,
  },
  {
    name: 'a query string',
    method: 'GET',
    path: '/api/user?trace=1',
    json: get,
    prism: 'accepted',
    ours: 'invalid',
    reason:
      'Prism ignores query parameters the document does not declare; the document takes none, and we refuse a query string rather than ignore a field sent there',
  },
  {
    name: 'charset=latin1',
    method: 'GET',
    headers: { ...auth(`Token ${customerKey}`), 'content-type': `${json}; charset=latin1` },
    json: get,
    prism: 'accepted',
    ours: 'invalid',
    reason: 'Prism ignores the charset parameter; the document requires UTF-8 JSON',
  },
  {
    name: 'a +json media type',
    method: 'GET',
    headers: { ...auth(`Token ${customerKey}`), 'content-type': 'application/vnd.api+json' },
    json: get,
    prism: 'accepted',
    ours: 'invalid',
    reason: 'Prism takes any +json type for application/json; the document names application/json only',
  },
  {
    name: 'Content-Encoding gzip on an uncompressed body',
    method: 'GET',
    headers: { ...auth(`Token ${customerKey}`), 'content-encoding': 'gzip' },
    json: get,
    prism: 'accepted',
    ours: 'invalid',
    reason: 'Prism ignores Content-Encoding; we take identity bodies only (415)',
  },
  {
    name: 'a duplicate key',
    method: 'GET',
    raw: '{"name":"A","user_group_id":"a","name":"B"}',
    prism: 'accepted',
    ours: 'invalid',
    reason: `${noBodyRules} (JSON.parse keeps the last duplicate)`,
  },
  {
    name: 'invalid UTF-8',
    method: 'GET',
    raw: Buffer.concat([
      Buffer.from('{"name":"A'),
      Buffer.from([0xff]),
      Buffer.from('","user_group_id":"a"}'),
    ]),
    prism: 'accepted',
    ours: 'invalid',
    reason: `${noBodyRules} (Prism decodes bad bytes to U+FFFD)`,
  },
  {
    name: 'properties nested 40 levels deep',
    method: 'GET',
    raw: `{"name":"A","user_group_id":"a","properties":${'{"a":'.repeat(40)}1${'}'.repeat(40)}}`,
    prism: 'accepted',
    ours: 'invalid',
    reason: `${noBodyRules} (at most 32 levels)`,
  },
  {
    name: 'a number beyond a double',
    method: 'GET',
    raw: '{"name":"A","user_group_id":"a","properties":{"n":1e400}}',
    prism: 'accepted',
    ours: 'invalid',
    reason: `${noBodyRules} (1e400)`,
  },
  {
    name: 'a constructor key inside properties',
    method: 'GET',
    raw: '{"name":"A","user_group_id":"a","properties":{"constructor":1}}',
    prism: 'accepted',
    ours: 'invalid',
    reason: `${noBodyRules} (forbidden keys)`,
  },
  {
    name: 'a body over 1 MiB',
    method: 'GET',
    raw: JSON.stringify({ ...get, properties: { blob: 'x'.repeat(1_100_000) } }),
    prism: 'accepted',
    ours: 'too-large',
    reason: 'Prism has no body size limit; the document sets 1 MiB',
  },
];
