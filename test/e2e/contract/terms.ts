/** The pieces every consumer interaction is built from: the contract's parties, keys, example data and matchers. */

import { fileURLToPath } from 'node:url';
import { MatchersV3, PactV4 } from '@pact-foundation/pact';
import type { GroupStateParams } from '../../../src/contract/providerStates.js';
import {
  consumerName,
  contractApiKeys,
  contractDirectory,
  providerName,
} from '../../../src/contract/publishedContract.js';
import type { Environment } from '../../../src/domain/model.js';
import { serviceDocument } from '../../../src/spec/loadDocument.js';

const { regex, integer, string, eachLike } = MatchersV3;

process.env.PACT_DO_NOT_TRACK = 'true';

/** One PactV4 writing (merging) into the published contract in `contracts/`. */
export const publishedPact = (): PactV4 =>
  new PactV4({
    consumer: consumerName,
    provider: providerName,
    dir: fileURLToPath(contractDirectory),
    logLevel: 'error',
  });

/** The group `a user group exists` puts in place (its token is the document's example token). */
export const knownGroup = (environment: Environment = 'Customer'): GroupStateParams => ({
  environment,
  user_group_id: 'customer-a',
  name: 'Customer A',
  token: '3f9c1e0b7a4d2c6e8f1a0b3c5d7e9f2a4c6e8a0b2d4f6a8c0e2a4c6e8f0a1b3c',
});

const tokenPattern = (): string => {
  const pattern = serviceDocument().components?.schemas?.Token?.pattern;
  if (typeof pattern !== 'string') throw new Error('openapi: components.schemas.Token has no pattern');
  return pattern;
};

/** A user group token: 64 lowercase hex characters, the pattern of the document's `Token` schema. */
export const token = (example = knownGroup().token) => regex(tokenPattern(), example);
export const teamId = () => integer(1);

/** `Authorization: Token <key>` with the contract's key for that environment (`jsonBody` adds the content type). */
export const requestHeaders = (environment: Environment = 'Customer') => ({
  authorization: regex('^Token \\S+$', `Token ${contractApiKeys[environment]}`),
});

/** The error envelope: a stable code, a message, and one diagnostic per problem pointing into the request. */
export const errorEnvelope = (code: string, detail: { code: string; path: string }) => ({
  success: 0,
  error: {
    code,
    message: string('What happened, and what to do about it.'),
    details: eachLike({
      code: string(detail.code),
      path: regex('^/(body|headers)(/.*)?$', detail.path),
      message: string('what is wrong at this place'),
    }),
  },
});
