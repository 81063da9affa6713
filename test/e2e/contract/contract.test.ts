import { rmSync } from 'node:fs';
import { beforeAll, describe } from 'vitest';
import { contractFile } from '../../../src/contract/publishedContract.js';
import { cliVerification } from './cliVerification.js';
import { errorInteractions } from './consumerErrors.js';
import { successInteractions } from './consumerSuccess.js';
import { contractDrift } from './drift.js';
import { providerVerification } from './providerVerification.js';

/*
 * One file, stages in order: vitest runs the describe blocks of a file one after the other, so the
 * contract is complete before the provider is verified against it (in process, then from the command line)
 * and before the drift check reads it.
 */
describe('consumer: the reference client writes the published contract', () => {
  // Pact merges into an existing file: start from nothing so removed interactions disappear.
  beforeAll(() => rmSync(contractFile, { force: true }));
  describe('successes', successInteractions);
  describe('errors', errorInteractions);
});

describe('provider: the fake passes Pact verification of the contract', providerVerification);

describe('cli: user-group-mock verify checks any provider', cliVerification);

describe('drift: the contract agrees with the OpenAPI document', contractDrift);
