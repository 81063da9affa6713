import { readFileSync } from 'node:fs';

/** A Markdown file of the repository (`README.md`, `docs/guarantees.md`) as text. */
export const readDocument = (path: string): string =>
  readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The text under the `## title` heading, up to the next heading of that level. Throws when there is none. */
export function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`no "## ${title}" section`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

/** Prose wraps anywhere: runs of white space count as one space. */
export const folded = (text: string): string => text.replace(/\s+/g, ' ');

const words: Readonly<Record<string, number>> = {
  once: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
};

/** A figure as prose writes it: `1,100,000`, `30`, `six`, `Three`, `once`. */
export function figure(text: string): number {
  return words[text.toLowerCase()] ?? Number(text.replaceAll(',', ''));
}

/**
 * The figures the capture groups of `pattern` find in `text` (white space folded). Throws when the pattern is not
 * there, so that a reworded claim fails its check instead of slipping past it.
 */
export function figuresIn(text: string, pattern: RegExp, where: string): number[] {
  const match = pattern.exec(folded(text));
  if (match === null)
    throw new Error(`${where} no longer says ${pattern}; update the check together with the text`);
  return match.slice(1).map((group) => figure(group ?? ''));
}

/** A figure stated in a section of a document, found by a pattern whose capture groups are the figures. */
export interface Claim {
  readonly document: string;
  readonly section: string;
  readonly says: RegExp;
}

/** The figures a claim states, read from its document now. */
export const claimedFigures = (claim: Claim): number[] =>
  figuresIn(
    section(readDocument(claim.document), claim.section),
    claim.says,
    `${claim.document} › ${claim.section}`,
  );

/** The counts README.md states, each checked by the test that runs them. */
export const readmeClaims = {
  /** test/reliability/hostileInput.test.ts */
  hostileInputs: { document: 'README.md', section: 'Guarantees', says: /(\d[\d,]*) kinds of hostile input/ },
  /** test/e2e/contract/prism.test.ts */
  prismRequests: {
    document: 'README.md',
    section: 'Contracts',
    says: /verdicts with Prism's on (\d[\d,]*) requests/,
  },
} as const satisfies Record<string, Claim>;
