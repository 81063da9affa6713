import { atPointer, followRefs, serviceDocument } from '../spec/loadDocument.js';
import { type Operation, operations, perOperation } from '../spec/operations.js';
import { type Diagnostic, diagnostic, pointer } from './diagnostic.js';

/**
 * Two client mistakes that schema errors alone explain badly, recognised from the document itself:
 * a body sent with the wrong method (`curl -d` without `-X GET` sends POST), and a field of the answers sent in a
 * request (`api_environment_tag`, `token`, `team_id`, …), explained by the `x-request-hint` the document gives it.
 */

export function operationsFitting(operation: Operation, accepts: (other: Operation) => boolean): Operation[] {
  return operations().filter(
    (other) =>
      other !== operation &&
      other.path === operation.path &&
      other.requestSchema !== undefined &&
      accepts(other),
  );
}

/** The diagnostic that leads when the body fits another method of the same path. */
export function wrongMethod(operation: Operation, fitting: readonly Operation[]): Diagnostic {
  const named = (o: Operation): string => `${o.method} (${o.shortName})`;
  const curl =
    operation.method === 'POST' && fitting.some((o) => o.method === 'GET')
      ? ' (get-or-create is a GET with a JSON body: curl -d sends POST unless given -X GET; fetch refuses a body on GET, undici.request and node:http send one)'
      : '';
  return diagnostic(
    'WRONG_METHOD',
    '/method',
    `the body fits ${fitting.map((o) => `${o.method} ${o.path} (${o.operationId})`).join(' and ')}, not ${operation.method} (${operation.operationId}): did you mean ${fitting.map(named).join(' or ')}?${curl}`,
  );
}

/**
 * A body that wraps the request's fields in one object (`{"user_group": {"name": …, "user_group_id": …}}`): the
 * fields it holds inside are not reported missing, and the wrapper's diagnostic says to send them at the top level.
 */
export function explainWrapper(
  operation: Operation,
  body: unknown,
  diagnostics: readonly Diagnostic[],
): readonly Diagnostic[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return diagnostics;
  const fields = requestFieldNames(operation);
  for (const [key, value] of Object.entries(body)) {
    if (fields.includes(key) || value === null || typeof value !== 'object' || Array.isArray(value)) continue;
    const inside = Object.keys(value).filter((name) => fields.includes(name));
    if (inside.length === 0) continue;
    const path = pointer('/body', key);
    const named = inside.map((name) => `"${name}"`).join(', ');
    const wrapper = diagnostic(
      'UNKNOWN_FIELD',
      path,
      `body has ${named} inside "${key}"; send ${inside.length > 1 ? 'these fields' : 'the field'} at the top level of the body, not inside "${key}"`,
    );
    const rest = diagnostics.filter(
      (d) =>
        d.path !== path &&
        !(d.code === 'MISSING_FIELD' && inside.some((n) => d.path === pointer('/body', n))),
    );
    return [wrapper, ...rest];
  }
  return diagnostics;
}

export const requestFieldNames = perOperation((operation): readonly string[] =>
  Object.keys(requestSchemaOf(operation)?.properties ?? {}),
);

/**
 * The smallest body an operation takes, as JSON text, from the document's examples of its fields: the required
 * fields, and as many others as `minProperties` asks (`{"user_group_id":"customer-a","name":"Customer A"}`).
 * Undefined when a field it needs has no example.
 */
export const smallestBody = perOperation((operation): string | undefined => {
  const schema = requestSchemaOf(operation);
  const properties = (schema?.properties as Record<string, Node> | undefined) ?? {};
  const required = (schema?.required as string[] | undefined) ?? [];
  const fewest = Math.max(required.length, Number(schema?.minProperties ?? 0));
  const names = [...required, ...Object.keys(properties).filter((n) => !required.includes(n))].slice(
    0,
    fewest,
  );
  const body: Record<string, unknown> = {};
  for (const name of names) {
    const examples = resolve(properties[name])?.examples;
    if (!Array.isArray(examples) || examples.length === 0) break;
    body[name] = examples[0];
  }
  return Object.keys(body).length === names.length ? JSON.stringify(body) : undefined;
});

/** Rewrites the unknown-field diagnostics of fields that only answers carry, with what decides each one. */
export function explainAnswerFields(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const hints = answerOnlyFields();
  return diagnostics.map((d) => {
    if (d.code !== 'UNKNOWN_FIELD') return d;
    const field = d.path.startsWith('/body/') ? d.path.slice('/body/'.length) : undefined;
    const hint = field === undefined ? undefined : hints.get(field);
    return hint === undefined
      ? d
      : diagnostic(
          'ANSWER_ONLY_FIELD',
          d.path,
          `body has "${field}", a field of the service's answers, not of requests: ${hint}. Remove it`,
        );
  });
}

let answerOnly: ReadonlyMap<string, string> | undefined;

type Node = Record<string, unknown>;

/** Fields the answers of the service carry and no request takes, with the document's `x-request-hint` for each. */
function answerOnlyFields(): ReadonlyMap<string, string> {
  if (answerOnly !== undefined) return answerOnly;
  /** The first `x-request-hint` along a chain of `$ref`s, starting at the property itself. */
  const hintOf = (node: unknown): unknown =>
    followRefs(node, undefined, (n) => typeof n['x-request-hint'] === 'string')?.['x-request-hint'];
  const requestFields = new Set(operations().flatMap((operation) => requestFieldNames(operation)));
  const fields = new Map<string, string>();
  const visit = (schema: Node | undefined, depth: number): void => {
    for (const [name, property] of Object.entries((schema?.properties as Node | undefined) ?? {})) {
      const hint = hintOf(property);
      if (typeof hint === 'string' && !requestFields.has(name)) fields.set(name, hint);
      if (depth < 1) visit(resolve(property as Node), depth + 1);
    }
  };
  for (const operation of operations()) visit(resolve(at(operation.responseSchemas.get('200'))), 0);
  answerOnly = fields;
  return fields;
}

const requestSchemaOf = (operation: Operation): Node | undefined => resolve(at(operation.requestSchema));

const resolve = (node: Node | undefined): Node | undefined => followRefs(node) as Node | undefined;

function at(path: string | undefined): Node | undefined {
  return path === undefined ? undefined : (atPointer(serviceDocument(), path) as Node | undefined);
}
