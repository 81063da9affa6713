import fc from 'fast-check';
import type { Environment } from '../domain/model.js';
import { ReferenceModel } from '../model/referenceModel.js';
import type { OperationId } from '../spec/operations.js';
import type { Call, JudgedCall, Targets } from './targets.js';

/** A sequence's calls until the first divergence, thrown for fast-check to shrink the sequence. */
export class DivergenceFound extends Error {
  override readonly name = 'DivergenceFound';
  constructor(readonly calls: readonly JudgedCall[]) {
    super(
      `the answer to call ${calls.length} diverges from the model: ${calls
        .at(-1)
        ?.verdict.divergences.map((d) => d.code)
        .join(', ')}`,
    );
  }
}

/** What one run of a sequence shares: the model, the service, the run's id prefix, and what it saw. */
export interface Run {
  readonly model: ReferenceModel;
  readonly targets: Targets;
  readonly environments: readonly Environment[];
  /** Every user_group_id of this run starts with it. */
  readonly prefix: string;
  readonly calls: JudgedCall[];
  /** Every token answered in this run, oldest first (current and rotated away, of every environment). */
  readonly tokens: string[];
}

const methods = {
  getOrCreateUserGroup: 'GET',
  updateUserGroup: 'PUT',
  rotateUserGroupToken: 'POST',
} as const;

/** Makes one call, has the model judge its answer, and throws DivergenceFound on a divergence. */
async function judged(run: Run, operationId: OperationId, key: number, body: Call['body']): Promise<void> {
  const call = await run.targets.call(methods[operationId], key, body);
  const verdict = run.model.verdict(
    { operationId, requestBody: body, status: call.status, responseBody: call.answer },
    scopeOf(key),
  );
  run.calls.push({ ...call, operationId, verdict });
  const token = (call.answer as { user_group?: { token?: unknown } } | undefined)?.user_group?.token;
  if (typeof token === 'string' && !run.tokens.includes(token)) run.tokens.push(token);
  if (verdict.divergences.length > 0) throw new DivergenceFound(run.calls);
}

export const scopeOf = (key: number): string => `key ${key}`;

/** A fresh model and an id prefix of its own: every run of a sequence starts from nothing the service holds. */
export function newRun(targets: Targets, environments: readonly Environment[], prefix: string): Run {
  const model = new ReferenceModel({
    knowledge: 'complete',
    environments: new Map(environments.map((environment, key) => [scopeOf(key), environment])),
  });
  return { model, targets, environments, prefix, calls: [], tokens: [] };
}

type Fields = { name?: string; properties?: Record<string, unknown>; mapping?: Record<string, string> };

const describe = (fields: object): string => JSON.stringify(fields);

class GetOrCreate implements fc.AsyncCommand<object, Run> {
  constructor(
    readonly key: number,
    readonly id: string,
    readonly fields: Fields & { name: string },
  ) {}
  check = () => true;
  async run(_: object, run: Run): Promise<void> {
    const key = this.key % run.environments.length;
    await judged(run, 'getOrCreateUserGroup', key, {
      user_group_id: `${run.prefix}${this.id}`,
      ...this.fields,
    });
  }
  toString = () => `get-or-create(key ${this.key}, ${describe({ id: this.id, ...this.fields })})`;
}

class Update implements fc.AsyncCommand<object, Run> {
  constructor(
    readonly key: number,
    readonly id: string,
    readonly fields: Fields,
  ) {}
  check = () => true;
  async run(_: object, run: Run): Promise<void> {
    const key = this.key % run.environments.length;
    await judged(run, 'updateUserGroup', key, { user_group_id: `${run.prefix}${this.id}`, ...this.fields });
  }
  toString = () => `update(key ${this.key}, ${describe({ id: this.id, ...this.fields })})`;
}

class Rotate implements fc.AsyncCommand<object, Run> {
  /** `back`: which token seen so far, counted from the newest (0); past the oldest, one never issued. */
  constructor(
    readonly key: number,
    readonly back: number,
  ) {}
  check = () => true;
  async run(_: object, run: Run): Promise<void> {
    const key = this.key % run.environments.length;
    const token = run.tokens[run.tokens.length - 1 - this.back] ?? neverIssued;
    await judged(run, 'rotateUserGroupToken', key, { current_token: token });
  }
  toString = () => `rotate(key ${this.key}, the token ${this.back} back)`;
}

/** A token no service issues (64 hex characters all zero). */
const neverIssued = '0'.repeat(64);

/** Ids in several scripts and forms: NFC and NFD of one letter, a trailing space, case, a non-BMP character. */
const ids = ['a', 'b', 'A', 'é', 'e\u0301', 'グループ', 'группа 1', 'a ', '😀'];
const names = ['A', 'Группа', '名前', 'مجموعة', '  spaced  ', 'e\u0301', 'Ωmega'];

/** Names the service takes: no control characters U+0000–U+001F or U+007F. */
const noControl = (text: string): boolean =>
  text.length > 0 && [...text].every((c) => (c.codePointAt(0) ?? 0) >= 0x20 && c !== '\u007f');
const name = fc.oneof(
  fc.constantFrom(...names),
  fc.string({ minLength: 1, maxLength: 16, unit: 'grapheme' }).filter(noControl),
);
const value = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.integer({ min: -1000, max: 1000 }),
  fc.boolean(),
  fc.constant(null),
);
const properties = fc.dictionary(fc.constantFrom('plan', 'seats', 'region', '2', '10', 'ключ'), value, {
  maxKeys: 3,
});
const mapping = fc.dictionary(fc.constantFrom('40', '41'), fc.constantFrom('213', '214'), { maxKeys: 2 });

/** The random calls of a sequence, each valid; their answers may be refusals (an unknown id, a dead token). */
export function commandArbitraries(keys: number): fc.Arbitrary<fc.AsyncCommand<object, Run>>[] {
  const key = fc.nat({ max: keys - 1 });
  // Mostly the same two ids, so that calls meet the groups earlier calls made; now and then another script or form.
  const id = fc.oneof(
    { arbitrary: fc.constant(ids[0] as string), weight: 6 },
    { arbitrary: fc.constant(ids[1] as string), weight: 2 },
    { arbitrary: fc.constantFrom(...ids.slice(2)), weight: 2 },
  );
  return [
    fc
      .record({ key, id, name, properties, mapping }, { requiredKeys: ['key', 'id', 'name'] })
      .map(({ key, id, ...fields }) => new GetOrCreate(key, id, fields)),
    fc
      .record({ key, id, name, properties, mapping }, { requiredKeys: ['key', 'id'] })
      .filter((r) => r.name !== undefined || r.properties !== undefined || r.mapping !== undefined)
      .map(({ key, id, ...fields }) => new Update(key, id, fields)),
    fc.record({ key, back: fc.nat({ max: 4 }) }).map(({ key, back }) => new Rotate(key, back)),
  ];
}
