import { describe, expect, it } from 'vitest';
import { handlers } from '../../../src/domain/handlers.js';
import { operations } from '../../../src/spec/operations.js';
import { requestFixtures } from '../../support/fixtures.js';

const ids = operations()
  .map((o) => o.operationId)
  .sort();

describe('every operation of the document', () => {
  it('has a handler, and every handler an operation', () => {
    expect(Object.keys(handlers).sort()).toEqual(ids);
  });

  it('has request fixtures, valid and invalid', () => {
    const fixtures = requestFixtures();
    expect(fixtures.map((f) => f.operationId).sort()).toEqual(ids);
    for (const f of fixtures) {
      expect(f.valid.length, f.operationId).toBeGreaterThan(0);
      expect(f.invalid.length, f.operationId).toBeGreaterThan(0);
    }
  });
});
