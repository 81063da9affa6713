import type { KeyOwner } from '../domain/model.js';
import type { JournalEntry } from '../spec/types.js';

/** One header as the journal lists it, its secrets hidden. */
export type RequestHeader = JournalEntry['requestHeaders'][number];

/** What an `Authorization` matched when the journal does not say: no key of the mock. */
const noKeyMatched = 'matches no API key';

/** Headers that carry a credential after a scheme: the scheme is shown, the credential never. */
const schemed = new Set(['authorization', 'proxy-authorization']);
/** Headers whose whole value is a secret (or may be one, by their name): only the length is shown. */
const secretName = /cookie|key|token|secret|password|session|signature/;

/**
 * The request's headers as the journal shows them, from Node's flat `rawHeaders`, which the journal keeps as
 * they came: hiding the secrets costs nothing until the journal is read. An `Authorization` value also says
 * what its key matched (`keyMatched`).
 */
export function requestHeadersOf(raw: readonly string[], keyMatched: string | undefined): RequestHeader[] {
  const headers: RequestHeader[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    const value = raw[i + 1] as string;
    const lower = name.toLowerCase();
    if (schemed.has(lower))
      headers.push({
        name,
        value: credential(value, lower === 'authorization' ? (keyMatched ?? noKeyMatched) : undefined),
      });
    else if (secretName.test(lower)) headers.push({ name, value: hidden(value.length, undefined) });
    else headers.push({ name, value });
  }
  return headers;
}

/** `Token ‹16 characters: the Customer key of tenant "default"›`: the scheme as sent, then the credential hidden. */
function credential(value: string, matched: string | undefined): string {
  const space = value.indexOf(' ');
  if (space <= 0) return hidden(value.length, matched === undefined ? 'no scheme' : `no scheme; ${matched}`);
  const secret = value.slice(space + 1).trimStart();
  return `${value.slice(0, space)} ${hidden(secret.length, matched)}`;
}

const hidden = (length: number, said: string | undefined): string =>
  `‹${length} character${length === 1 ? '' : 's'}${said === undefined ? ', hidden' : `: ${said}`}›`;

const ownerWords = new WeakMap<KeyOwner, string>();

/**
 * What a key of the mock matched, as an `Authorization` value in the journal says it: `the Customer key of tenant
 * "default"`. Made once per owner (owners live as long as the key ring), so a request journals no new string.
 */
export function keyMatchedBy(owner: KeyOwner): string {
  let words = ownerWords.get(owner);
  if (words === undefined) {
    words = `the ${owner.environment} key of tenant ${JSON.stringify(owner.tenant)}`;
    ownerWords.set(owner, words);
  }
  return words;
}
