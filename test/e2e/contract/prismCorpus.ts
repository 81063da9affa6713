import { knownDifferences } from './prismDifferences.js';
import { accepted, invalid, type Probe, refused } from './prismProbes.js';

/** Every request sent to both Prism and our mock: README.md states how many there are. */
export const prismCorpus: readonly Probe[] = [...accepted, ...invalid, ...refused, ...knownDifferences];
