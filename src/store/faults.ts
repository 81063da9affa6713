import type { Fault, FaultRequest } from '../spec/types.js';

/** A planned failure: the next `remaining` matching calls answer `status`, wait `delay_ms`, or lose their connection. */
export type { Fault };
/** A fault to plan, as `FaultRequest` in openapi/admin.yaml: at least one of `status`, `delay_ms`, `action`. */
export type FaultSpec = FaultRequest;

/** The fault `spec` plans, but for its id: what every store keeps of it. */
export const plannedFault = (spec: FaultSpec): Omit<Fault, 'id'> => ({
  operationId: spec.operationId ?? null,
  status: spec.status ?? null,
  delay_ms: spec.delay_ms ?? 0,
  action: spec.action ?? null,
  remaining: spec.times ?? 1,
});

/** The pending faults of one tenant, matched in the order planned; at most `capacity`, the oldest dropped first. */
export class Faults {
  #faults: Fault[] = [];
  #nextId = 1;

  constructor(private readonly capacity = 1000) {}

  add(spec: FaultSpec): Fault {
    const fault: Fault = { id: this.#nextId++, ...plannedFault(spec) };
    this.#faults.push(fault);
    if (this.#faults.length > this.capacity) this.#faults.splice(0, this.#faults.length - this.capacity);
    return { ...fault };
  }

  /** The first fault matching this operation, counted as used. */
  take(operationId: string): Fault | undefined {
    if (this.#faults.length === 0) return undefined; // the usual case, asked on every request
    const fault = this.#faults.find((f) => f.operationId === null || f.operationId === operationId);
    if (fault === undefined) return undefined;
    fault.remaining--;
    if (fault.remaining <= 0) this.#faults = this.#faults.filter((f) => f !== fault);
    return fault;
  }

  list(): Fault[] {
    return this.#faults.map((f) => ({ ...f }));
  }

  clear(): void {
    this.#faults = [];
  }
}
