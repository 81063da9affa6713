/**
 * Hop-by-hop headers (RFC 9110, section 7.6.1): they describe one connection, so a proxy drops them, with every
 * header the `Connection` field names, and frames the message again itself. `Proxy-*` headers are for this proxy.
 */
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  // Framed again by the proxy from the bytes it buffered.
  'content-length',
]);

/**
 * The end-to-end headers of a flat `rawHeaders` list (`[name, value, name, value, ...]`), byte for byte and
 * in order: all but those `hopByHop` says a proxy drops, and the `also` names (lower case).
 */
export function endToEndHeaders(raw: readonly string[], also: readonly string[] = []): string[] {
  // The names a Connection header lists: rare, so no collection is built without one.
  let listed: string[] | undefined;
  for (let i = 0; i < raw.length; i += 2)
    if ((raw[i] as string).toLowerCase() === 'connection') {
      listed ??= [];
      for (const token of (raw[i + 1] as string).split(',')) listed.push(token.trim().toLowerCase());
    }
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    if (hopByHop.has(name) || name.startsWith('proxy-') || also.includes(name) || listed?.includes(name))
      continue;
    kept.push(raw[i] as string, raw[i + 1] as string);
  }
  return kept;
}

/** The first value of header `name` (lower case) in a flat `rawHeaders` list, as sent. */
export function headerOf(raw: readonly string[], name: string): string | undefined {
  for (let i = 0; i < raw.length; i += 2) if ((raw[i] as string).toLowerCase() === name) return raw[i + 1];
  return undefined;
}
