import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';

/** An answer's body with its content codings undone, or why it cannot be judged. */
export type DecodedAnswer =
  | { readonly kind: 'decoded'; readonly body: Buffer }
  /** The bytes are not what the coding says: the service's fault. */
  | { readonly kind: 'corrupt'; readonly message: string }
  /** A coding the proxy does not know, or a decoded body over the limit: the body is passed on, not judged. */
  | { readonly kind: 'unjudged'; readonly message: string };

const decoders: Readonly<Record<string, (bytes: Buffer, limit: number) => Buffer>> = {
  gzip: (bytes, limit) => gunzipSync(bytes, { maxOutputLength: limit }),
  'x-gzip': (bytes, limit) => gunzipSync(bytes, { maxOutputLength: limit }),
  br: (bytes, limit) => brotliDecompressSync(bytes, { maxOutputLength: limit }),
  // HTTP's deflate is the zlib format (RFC 9110, 8.4.1.2); some servers send raw deflate, which is read too.
  deflate: (bytes, limit) => {
    try {
      return inflateSync(bytes, { maxOutputLength: limit });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw error;
      return inflateRawSync(bytes, { maxOutputLength: limit });
    }
  },
};

/**
 * The body of an answer as the service meant it, for judging (the client gets the bytes as they came): the
 * codings its `Content-Encoding` lists undone, the last applied first, the result at most `limit` bytes.
 */
export function decodeAnswer(body: Buffer, contentEncoding: string, limit: number): DecodedAnswer {
  const codings = contentEncoding
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  let bytes = body;
  for (const coding of codings.reverse()) {
    const decode = decoders[coding];
    if (decode === undefined)
      return {
        kind: 'unjudged',
        message: `the answer is encoded with Content-Encoding "${coding}", which the proxy cannot decode (it reads gzip, deflate and br), so its body was passed on without being judged`,
      };
    try {
      bytes = decode(bytes, limit);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ERR_BUFFER_TOO_LARGE')
        return {
          kind: 'unjudged',
          message: `the answer decoded from Content-Encoding "${coding}" is larger than the answer limit of ${limit} bytes, so its body was passed on without being judged`,
        };
      return {
        kind: 'corrupt',
        message: `the answer says Content-Encoding "${coding}" but its body is not ${coding} data (${code ?? (error as Error).message}); the service must encode the body as its Content-Encoding says, or send no Content-Encoding`,
      };
    }
  }
  return { kind: 'decoded', body: bytes };
}
