import { request } from 'undici';

/** How long one call of a provider's `/__admin` API or state-change URL may take before it is given up. */
const adminTimeoutMs = 15_000;

/** What a provider without a route answers to it: no such path, method, or implementation. */
export const routeMissing: ReadonlySet<number | undefined> = new Set([404, 405, 501]);

export const adminUrlOf = (baseUrl: string): string => `${baseUrl.replace(/\/+$/, '')}/__admin`;

/** The headers of an admin call: the API key whose scope it acts in, and the admin key, each when given. */
export const adminHeaders = (
  apiKey: string | undefined,
  adminKey: string | undefined,
): Record<string, string> => ({
  ...(apiKey === undefined ? {} : { authorization: `Token ${apiKey}` }),
  ...(adminKey === undefined ? {} : { 'x-admin-key': adminKey }),
});

/**
 * A provider's answer to an `/__admin` call: its status, its text, and the text parsed when it is JSON; or no answer
 * (`status` undefined), `text` saying why (a network error, the time-out).
 */
export interface AdminAnswer {
  readonly status: number | undefined;
  readonly text: string;
  readonly body: unknown;
}

/** Sends one `/__admin` or state-change call (a JSON body when given) and reads the whole answer, if one comes. */
export async function adminRequest(
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  headers: Readonly<Record<string, string>>,
  body?: unknown,
): Promise<AdminAnswer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  let status: number;
  let text: string;
  try {
    const response = await request(url, {
      method,
      // undici sends the Content-Length of a string body itself.
      headers: payload === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: payload,
      signal: AbortSignal.timeout(adminTimeoutMs),
    });
    status = response.statusCode;
    text = await response.body.text();
  } catch (error) {
    return { status: undefined, text: (error as Error).message, body: undefined };
  }
  try {
    return { status, text, body: text === '' ? undefined : JSON.parse(text) };
  } catch {
    return { status, text, body: undefined };
  }
}

/** The error envelope's `code: message`, or the start of the text. */
export function reasonOf(answer: AdminAnswer): string {
  const { error } = (answer.body ?? {}) as { error?: { code?: unknown; message?: unknown } };
  if (typeof error?.code === 'string') return `${error.code}: ${String(error.message ?? '')}`;
  return answer.text.slice(0, 200);
}

/** The error envelope's `code`, when the answer has one. */
export function errorCodeOf(answer: AdminAnswer): string | undefined {
  const { error } = (answer.body ?? {}) as { error?: { code?: unknown } };
  return typeof error?.code === 'string' ? error.code : undefined;
}
