// Minimal typings for the parts of autocannon 8 that the benchmark uses (the package ships none).
declare module 'autocannon' {
  namespace autocannon {
    interface RequestParams {
      method: string;
      path: string;
      headers: Record<string, string>;
      body?: string | Buffer;
    }
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      setupRequest?: (request: RequestParams, context: Record<string, unknown>) => RequestParams;
      onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      maxOverallRequests?: number | undefined;
      sampleInt?: number;
      timeout?: number;
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      requests?: Request[];
    }
    interface Result {
      errors: number;
      timeouts: number;
      non2xx: number;
    }
    /** The running benchmark: awaitable, and emits `response` with the latency in ms (not rounded). */
    interface Instance extends PromiseLike<Result> {
      on(
        event: 'response',
        listener: (client: unknown, status: number, bytes: number, responseTimeMs: number) => void,
      ): Instance;
    }
  }
  function autocannon(options: autocannon.Options): autocannon.Instance;
  export = autocannon;
}
