// `npm run bench:readme`: writes the README's benchmark table and docs/scaling.md's figures from bench/results.json.
import { publishToReadme } from './readme.js';
import { readResults } from './results.js';

publishToReadme(readResults());
