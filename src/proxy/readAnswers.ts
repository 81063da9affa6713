import { LRUCache } from 'lru-cache';
import type { PipelineRequest } from '../pipeline/pipelineRequest.js';
import { judgeResponse } from '../pipeline/validateResponse.js';
import type { Diagnostic } from '../spec/types.js';
import { parseJsonBody } from '../validate/jsonText.js';

/** What an answer's bytes come to for its operation and status: its value, its text, what the schema finds. */
export interface ReadAnswer {
  /** The JSON value (for the reference model), or undefined when the body is empty or not JSON. */
  readonly value: unknown;
  /** The text the journal keeps: the body as it came, a JSON string of it when it is not JSON, null when empty. */
  readonly text: string | null;
  /** The schema's diagnostics: what the answer got wrong for its operation and status. */
  readonly diagnostics: readonly Diagnostic[];
}

/** What `readAnswer` is told: the exchange's request (routed), the answer's status, type, decoded body. */
export interface Answered {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: Buffer;
}

/**
 * Reads an answer's bytes once: parsed (the value when the answer is sound JSON, else its bytes, for the schema
 * check to name the fault) and checked against the document for the request's operation and status, its
 * Content-Type included.
 */
export function readAnswer(request: PipelineRequest, answer: Answered, lenient: boolean): ReadAnswer {
  const { status, contentType, body } = answer;
  const parsed = body.length === 0 ? undefined : parseJsonBody(body, 'answer');
  const value = parsed === undefined ? undefined : parsed.ok ? parsed.value.value : plainJson(body);
  const checked = judgeResponse(
    request,
    {
      method: request.method,
      path: request.path,
      status,
      body: parsed?.ok === true ? value : body,
      contentType: contentType ?? null,
    },
    { allowAdditionalProperties: lenient },
  );
  const text =
    parsed === undefined
      ? null
      : parsed.ok
        ? parsed.value.text
        : value === undefined
          ? JSON.stringify(body.toString('utf8'))
          : body.toString('utf8');
  return { value, text, diagnostics: checked.diagnostics };
}

/** What JSON.parse makes of an answer parseJsonBody refused (a repeated key, a byte order mark...), if anything. */
function plainJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Answers read again from memory: the most recent of them, and only bodies up to this size. */
const answersKept = 1_000;
const largestKept = 4 * 1024;

/**
 * The answers a proxy read most recently (`readAnswer`), by operation, status, content type and bytes: a service
 * sends the same bytes again for each read of an unchanged group, the most frequent exchange of all, and reading
 * them is a parse, a scan for repeated keys and a schema check: the largest of the proxy's own costs in a CPU
 * profile at saturation (docs/performance.md). What an answer comes to depends on those alone (and the proxy's
 * leniency, one per memo), so the same bytes are read the same way. The values kept are frozen: the reference model
 * reads them, never changes them. Bounded: `answersKept` answers of at most `largestKept` bytes each (`lru-cache`).
 */
export class ReadAnswers {
  readonly #kept = new LRUCache<string, ReadAnswer>({ max: answersKept });

  constructor(private readonly lenient: boolean) {}

  read(request: PipelineRequest, answer: Answered): ReadAnswer {
    if (answer.body.length > largestKept) return readAnswer(request, answer, this.lenient);
    const key = `${request.operation?.operationId} ${answer.status} ${answer.contentType}\n${answer.body.toString('latin1')}`;
    let read = this.#kept.get(key);
    if (read === undefined) {
      read = readAnswer(request, answer, this.lenient);
      deepFreeze(read);
      this.#kept.set(key, read);
    }
    return read;
  }
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
}
