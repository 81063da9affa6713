/**
 * Where Specmatic is known to be wrong about the document, each asserted as it is by test/e2e/contract/specmatic.test.ts
 * (every entry must still happen), so that a fixed Specmatic or a changed mock shows up as a failing test.
 */

/**
 * Requests that Specmatic generates itself (its resiliency tests) and expects to succeed, which the mock refuses as
 * the document says it must.
 */
export interface GeneratedDifference {
  readonly name: string;
  /** The status Specmatic expects. */
  readonly specmatic: string;
  /** What the mock answers instead: the status, and the diagnostic code and paths of every problem it names. */
  readonly ours: { readonly status: number; readonly code: string; readonly paths: readonly string[] };
  /** What the value at each of those paths contains. */
  readonly offending: RegExp;
  /** Scenarios that always meet this difference (others meet it by chance). */
  readonly always: RegExp;
  readonly reason: string;
}

export const generatedDifferences: readonly GeneratedDifference[] = [
  {
    name: 'control characters in strings generated for `^[^\\u0000-\\u001F\\u007F]+$`',
    specmatic: '200',
    ours: { status: 400, code: 'INVALID_FORMAT', paths: ['/body/name', '/body/user_group_id'] },
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is looked for
    offending: /[\u0000-\u001F\u007F]/,
    always: /\+ve {2}Scenario: .* (name|user_group_id) is set to the (shortest|longest) possible string/,
    reason:
      "Specmatic's string generator ignores the negated character class of GroupName's and UserGroupId's pattern " +
      'and sends control characters as valid values: its shortest string is "\\u0000", its longest about one ' +
      'third control characters, and its other strings contain some by chance. The document forbids them (400).',
  },
];
