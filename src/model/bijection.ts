import { LRUCache } from 'lru-cache';

/**
 * A one-to-one map between the model's values and a provider's (tokens, team ids), each side found from the other.
 * Bounded: past `capacity` pairs the least recently used is forgotten (a rule then checks less, never wrongly).
 */
export class Bijection<M, P> {
  readonly #toProvider: LRUCache<M & {}, P & {}>;
  readonly #toModel = new Map<P, M>();

  constructor(capacity: number) {
    this.#toProvider = new LRUCache<M & {}, P & {}>({
      max: capacity,
      dispose: (provider, model, reason) => {
        if (reason !== 'set' && this.#toModel.get(provider) === model) this.#toModel.delete(provider);
      },
    });
  }

  providerOf(model: M): P | undefined {
    return this.#toProvider.get(model as M & {});
  }

  modelOf(provider: P): M | undefined {
    return this.#toModel.get(provider);
  }

  /** Pairs the two, first unpairing each from any earlier partner. */
  bind(model: M, provider: P): void {
    this.forgetModel(model);
    const earlier = this.#toModel.get(provider);
    if (earlier !== undefined) this.forgetModel(earlier);
    this.#toProvider.set(model as M & {}, provider as P & {});
    this.#toModel.set(provider, model);
  }

  forgetModel(model: M): void {
    const provider = this.#toProvider.peek(model as M & {});
    if (provider === undefined) return;
    this.#toProvider.delete(model as M & {});
    if (this.#toModel.get(provider) === model) this.#toModel.delete(provider);
  }

  clear(): void {
    this.#toProvider.clear();
    this.#toModel.clear();
  }
}
