import { hash } from 'node:crypto';

/** How the model names an API key: its SHA-256 digest (the key itself is not kept by the model). */
export const keyScope = (apiKey: string): string => hash('sha256', apiKey, 'base64');

/**
 * The scopes of the keys a proxy sees, each digest taken once: a client sends the same few keys on every request.
 * Holds at most `limit` keys (emptied when full: a flood of made-up keys costs a digest each, as without it).
 */
export class KeyScopes {
  readonly #scopes = new Map<string, string>();

  constructor(private readonly limit = 1_000) {}

  of(apiKey: string): string {
    let scope = this.#scopes.get(apiKey);
    if (scope === undefined) {
      scope = keyScope(apiKey);
      if (this.#scopes.size >= this.limit) this.#scopes.clear();
      this.#scopes.set(apiKey, scope);
    }
    return scope;
  }
}
