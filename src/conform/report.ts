import { type DivergenceCode, divergenceRules } from '../model/divergences.js';
import type { ConformResult } from './conformResult.js';
import type { JudgedCall } from './targets.js';

/** A shell word: single-quoted, a quote inside written '\''. */
const shellWord = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`;

/** The environment variable a printed curl command takes key number `key` (0-based) from. */
export const keyVariable = (key: number): string => `UGM_KEY_${key + 1}`;

/** One call as a curl command (the key from its variable), its answer, the model's, and any divergence. */
export function callText(call: JudgedCall, index: number): string {
  const lines = [
    `${index + 1}. curl -sS -X ${call.method} ${shellWord(new URL('api/user', call.target).href)} -H "Authorization: Token $${keyVariable(call.key)}" -H 'Content-Type: application/json' -d ${shellWord(JSON.stringify(call.body))}`,
    `   answered: ${call.status} ${JSON.stringify(call.answer)}`,
  ];
  const { expected, divergences } = call.verdict;
  if (divergences.length > 0 && expected !== undefined)
    lines.push(
      `   expected: ${expected.status}${expected.body === undefined ? ' (a refusal)' : ` ${JSON.stringify(expected.body)}`}`,
    );
  for (const d of divergences) lines.push(`   ✗ ${d.code} at ${d.path}: ${d.message}`);
  return lines.join('\n');
}

/** The JUnit XML of a result: one test case per rule, failed when the shrunk sequence broke it. */
export function junitReport(result: ConformResult): string {
  const broken = new Map<DivergenceCode, string>();
  const calls = result.counterexample?.calls ?? [];
  for (const d of calls.at(-1)?.verdict.divergences ?? [])
    broken.set(d.code as DivergenceCode, calls.map(callText).join('\n'));
  const cases = result.rules.map((code) => {
    const name = `${code}: ${divergenceRules[code]}`;
    const failure = broken.get(code);
    const body =
      result.outcome === 'could-not-run'
        ? `<skipped message="${xml(result.reason ?? '')}"/>`
        : failure === undefined
          ? ''
          : `<failure message="${xml(code)}">${xml(failure)}</failure>`;
    return `    <testcase classname="user-group-mock conform" name="${xml(name)}">${body}</testcase>`;
  });
  const error =
    result.outcome === 'could-not-run'
      ? [
          `    <testcase classname="user-group-mock conform" name="the run"><error message="${xml(result.reason ?? '')}"/></testcase>`,
        ]
      : [];
  const failures = broken.size;
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="user-group-mock conform" tests="${cases.length + error.length}" failures="${failures}" errors="${error.length}" skipped="${result.outcome === 'could-not-run' ? cases.length : 0}">
    <properties>
      <property name="seed" value="${result.seed}"/>
      <property name="runs" value="${result.runs}"/>
      <property name="prefix" value="${xml(result.prefix)}"/>
${result.targets.map((t) => `      <property name="target" value="${xml(t)}"/>`).join('\n')}
    </properties>
${[...error, ...cases].join('\n')}
  </testsuite>
</testsuites>
`;
}

const xml = (text: string): string =>
  text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: XML 1.0 cannot hold these characters
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '\ufffd');

/** The result as JSON, for CI (the keys are not in it). */
export const jsonReport = (result: ConformResult): string => `${JSON.stringify(result, null, 2)}\n`;
