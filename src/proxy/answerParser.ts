/**
 * Reads one HTTP/1.1 answer from the bytes of a connection as they arrive (RFC 9112), with no I/O of its own: the
 * proxy's upstream client feeds it what its socket reads. Strict as Node's own parser is by default: a malformed
 * status line or header, obsolete line folding, a bare LF, both Transfer-Encoding and Content-Length, or
 * Content-Length values that disagree end the answer as `malformed`. Interim 1xx answers (but 101) are read and
 * dropped. The body is framed as the RFC says: none after HEAD and for 204 and 304, chunked when the last transfer
 * coding is chunked (trailers read and dropped), by Content-Length, else by the end of the connection.
 */

/** The answer's head as sent: status, reason, and its headers as a flat `[name, value, ...]` list. */
export interface AnswerHead {
  readonly status: number;
  readonly reason: string;
  readonly rawHeaders: string[];
}

export type AnswerRead =
  | { readonly state: 'more' }
  /** `reusable`: the connection may carry the next request (persistent, framed, nothing sent after the answer). */
  | { readonly state: 'done'; readonly head: AnswerHead; readonly body: Buffer; readonly reusable: boolean }
  | {
      readonly state: 'failed';
      readonly problem: 'malformed' | 'too large' | 'cut short';
      readonly why: string;
    };

export interface AnswerLimits {
  /** The largest head (status line and headers), and the largest chunk-size or trailer line, in bytes. */
  readonly headBytes: number;
  /** The largest body, in bytes. */
  readonly bodyBytes: number;
}

const CRLF = Buffer.from('\r\n');
const END_OF_HEAD = Buffer.from('\r\n\r\n');
const statusLine = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: (.*))?$/;
const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const digits = /^\d+$/;
const chunkSize = /^([0-9A-Fa-f]{1,15})[ \t]*(?:;.*)?$/;

type Framing =
  | { readonly kind: 'none' }
  | { readonly kind: 'length'; readonly length: number }
  | { readonly kind: 'chunked' }
  | { readonly kind: 'close' };

export class AnswerParser {
  readonly #limits: AnswerLimits;
  readonly #toHead: boolean;
  /** Bytes read and not consumed yet. */
  #pending: Buffer = Buffer.alloc(0);
  #answerHead: (AnswerHead & { readonly persistent: boolean }) | undefined;
  #framing: Framing = { kind: 'none' };
  readonly #body: Buffer[] = [];
  #bodyBytes = 0;
  /** Chunked: bytes left of the current chunk's data, or the step the next line is. */
  #chunk: { readonly step: 'size' | 'data-end' | 'trailers' } | { readonly step: 'data'; left: number } = {
    step: 'size',
  };
  #result: AnswerRead = { state: 'more' };

  /** `method`: the request's (a HEAD's answer has no body whatever its headers say). */
  constructor(method: string, limits: AnswerLimits) {
    this.#toHead = method === 'HEAD';
    this.#limits = limits;
  }

  /** Takes the next bytes of the connection. */
  push(bytes: Buffer): AnswerRead {
    if (this.#result.state !== 'more') {
      // Bytes after a whole answer: the connection is not in step with its requests, so it is not used again.
      if (this.#result.state === 'done') this.#result = { ...this.#result, reusable: false };
      return this.#result;
    }
    this.#pending = this.#pending.length === 0 ? bytes : Buffer.concat([this.#pending, bytes]);
    this.#result = this.#read();
    if (this.#result.state === 'done' && this.#pending.length > 0)
      this.#result = { ...this.#result, reusable: false };
    return this.#result;
  }

  /** The connection ended: the answer is whole only if its end was the end of the connection. */
  end(): AnswerRead {
    if (this.#result.state !== 'more') return this.#result;
    if (this.#answerHead !== undefined && this.#framing.kind === 'close') this.#result = this.#done(false);
    else
      this.#result = {
        state: 'failed',
        problem: 'cut short',
        why:
          this.#answerHead === undefined && this.#pending.length === 0
            ? 'closed the connection without answering'
            : 'closed the connection before the whole answer',
      };
    return this.#result;
  }

  #read(): AnswerRead {
    while (this.#answerHead === undefined) {
      const end = this.#pending.indexOf(END_OF_HEAD);
      if (end === -1) return this.#tooLongHead(this.#pending.length) ?? this.#noBareLf() ?? { state: 'more' };
      const tooLong = this.#tooLongHead(end + 4);
      if (tooLong !== undefined) return tooLong;
      const read = readHead(this.#pending.toString('latin1', 0, end));
      this.#pending = this.#pending.subarray(end + 4);
      if ('why' in read) return { state: 'failed', problem: 'malformed', why: read.why };
      if (read.status === 101)
        return {
          state: 'failed',
          problem: 'malformed',
          why: 'answered 101 Switching Protocols to a request that asked for no upgrade',
        };
      if (read.status < 200) continue; // interim: 100 Continue, 103 Early Hints...
      const framing = framingOf(read, this.#toHead);
      if ('why' in framing) return { state: 'failed', problem: 'malformed', why: framing.why };
      if (framing.kind === 'length' && framing.length > this.#limits.bodyBytes) return this.#bodyTooLarge();
      this.#answerHead = read;
      this.#framing = framing;
    }
    const framing = this.#framing;
    switch (framing.kind) {
      case 'none':
        return this.#done(true);
      case 'length': {
        const wanted = framing.length - this.#bodyBytes;
        const taken = this.#take(Math.min(wanted, this.#pending.length));
        if (taken !== undefined) return taken;
        return this.#bodyBytes === framing.length ? this.#done(true) : { state: 'more' };
      }
      case 'close': {
        return this.#take(this.#pending.length) ?? { state: 'more' };
      }
      case 'chunked':
        return this.#readChunks();
    }
  }

  #readChunks(): AnswerRead {
    for (;;) {
      const chunk = this.#chunk;
      if (chunk.step === 'data') {
        const n = Math.min(chunk.left, this.#pending.length);
        const taken = this.#take(n);
        if (taken !== undefined) return taken;
        chunk.left -= n;
        if (chunk.left > 0) return { state: 'more' };
        this.#chunk = { step: 'data-end' };
        continue;
      }
      const end = this.#pending.indexOf(CRLF);
      if (end === -1) return this.#tooLongHead(this.#pending.length) ?? this.#noBareLf() ?? { state: 'more' };
      const tooLong = this.#tooLongHead(end + 2);
      if (tooLong !== undefined) return tooLong;
      const line = this.#pending.toString('latin1', 0, end);
      this.#pending = this.#pending.subarray(end + 2);
      if (chunk.step === 'data-end') {
        if (line !== '') return malformed('sent a chunk longer than its size line said');
        this.#chunk = { step: 'size' };
      } else if (chunk.step === 'size') {
        const size = chunkSize.exec(line);
        if (size === null)
          return malformed(
            `sent a chunk-size line that is not hexadecimal: ${JSON.stringify(line.slice(0, 40))}`,
          );
        const left = Number.parseInt(size[1] as string, 16);
        this.#chunk = left === 0 ? { step: 'trailers' } : { step: 'data', left };
      } else {
        // Trailer fields: checked as header fields, then dropped (the proxy frames its answer by length).
        if (line === '') return this.#done(true);
        if (readField(line) === undefined)
          return malformed(`sent a malformed trailer field: ${JSON.stringify(line.slice(0, 60))}`);
      }
    }
  }

  /** Moves `n` pending bytes into the body, or fails when the body grows past its limit. */
  #take(n: number): AnswerRead | undefined {
    if (n === 0) return undefined;
    if (this.#bodyBytes + n > this.#limits.bodyBytes) return this.#bodyTooLarge();
    this.#body.push(this.#pending.subarray(0, n));
    this.#bodyBytes += n;
    this.#pending = this.#pending.subarray(n);
    return undefined;
  }

  #bodyTooLarge(): AnswerRead {
    return {
      state: 'failed',
      problem: 'too large',
      why: `answered a body larger than the limit of ${this.#limits.bodyBytes} bytes`,
    };
  }

  #tooLongHead(bytes: number): AnswerRead | undefined {
    return bytes > this.#limits.headBytes
      ? {
          state: 'failed',
          problem: 'too large',
          why: `answered a head (status line and headers) or a chunk or trailer line over ${this.#limits.headBytes} bytes`,
        }
      : undefined;
  }

  /** A line ended by LF alone: HTTP/1.1 ends lines with CRLF, and a bare LF is how responses get split. */
  #noBareLf(): AnswerRead | undefined {
    const lf = this.#pending.indexOf(10);
    return lf !== -1 && (lf === 0 || this.#pending[lf - 1] !== 13)
      ? malformed('ended a line with a bare LF; HTTP/1.1 lines end with CRLF')
      : undefined;
  }

  #done(persistent: boolean): AnswerRead {
    const head = this.#answerHead as AnswerHead & { readonly persistent: boolean };
    return {
      state: 'done',
      head: { status: head.status, reason: head.reason, rawHeaders: head.rawHeaders },
      body: this.#body.length === 1 ? (this.#body[0] as Buffer) : Buffer.concat(this.#body, this.#bodyBytes),
      reusable: persistent && head.persistent,
    };
  }
}

const malformed = (why: string): AnswerRead => ({ state: 'failed', problem: 'malformed', why });

/** The status line and header fields of a head (its text without the blank line), or what is wrong with it. */
function readHead(text: string): (AnswerHead & { readonly persistent: boolean }) | { readonly why: string } {
  const lines = text.split('\r\n');
  const first = lines[0] as string;
  const status = statusLine.exec(first);
  if (status === null || hasControl(status[3] ?? ''))
    return { why: `sent a status line that is not HTTP/1.x: ${JSON.stringify(first.slice(0, 60))}` };
  const rawHeaders: string[] = [];
  let persistent = status[1] === '1';
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.includes('\n')) return { why: 'ended a line with a bare LF; HTTP/1.1 lines end with CRLF' };
    if (line.startsWith(' ') || line.startsWith('\t'))
      return { why: 'folded a header over two lines (obsolete line folding, refused by RFC 9112)' };
    const field = readField(line);
    if (field === undefined)
      return { why: `sent a malformed header line: ${JSON.stringify(line.slice(0, 60))}` };
    rawHeaders.push(field[0], field[1]);
    if (field[0].toLowerCase() === 'connection')
      for (const option of field[1].split(','))
        if (option.trim().toLowerCase() === 'close') persistent = false;
  }
  return { status: Number(status[2]), reason: status[3] ?? '', rawHeaders, persistent };
}

/** `name: value` with the value's surrounding spaces and tabs trimmed, or undefined when malformed. */
function readField(line: string): [string, string] | undefined {
  const colon = line.indexOf(':');
  if (colon <= 0) return undefined;
  const name = line.slice(0, colon);
  const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
  return token.test(name) && !hasControl(value) ? [name, value] : undefined;
}

/**
 * Whether a reason phrase or field value has a control character: visible characters, spaces, tabs and obs-text
 * are allowed, nothing else (no CR, LF, NUL or DEL).
 */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c === 0x7f) return true;
  }
  return false;
}

/** How the body of an answer is delimited (RFC 9112, section 6.3), or why its headers make that ambiguous. */
function framingOf(head: AnswerHead, toHead: boolean): Framing | { readonly why: string } {
  if (toHead || head.status === 204 || head.status === 304) return { kind: 'none' };
  const codings: string[] = [];
  const lengths: string[] = [];
  const raw = head.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    const value = raw[i + 1] as string;
    if (name === 'transfer-encoding') for (const c of value.split(',')) codings.push(c.trim().toLowerCase());
    else if (name === 'content-length') for (const l of value.split(',')) lengths.push(l.trim());
  }
  if (codings.length > 0 && lengths.length > 0)
    return { why: 'sent both Transfer-Encoding and Content-Length, which leaves the answer’s end ambiguous' };
  if (codings.length > 0)
    return codings[codings.length - 1] === 'chunked' ? { kind: 'chunked' } : { kind: 'close' };
  if (lengths.length > 0) {
    const first = lengths[0] as string;
    if (lengths.some((l) => !digits.test(l) || l.length > 15))
      return { why: `sent a Content-Length that is not a number: ${JSON.stringify(lengths.join(', '))}` };
    if (lengths.some((l) => Number(l) !== Number(first)))
      return { why: `sent Content-Length values that disagree: ${JSON.stringify(lengths.join(', '))}` };
    return { kind: 'length', length: Number(first) };
  }
  return { kind: 'close' };
}
