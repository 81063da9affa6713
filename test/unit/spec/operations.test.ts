import { describe, expect, it } from 'vitest';
import { createRouter, type Operation } from '../../../src/spec/operations.js';

const operation = (method: Operation['method'], path: string, operationId: string): Operation => ({
  operationId,
  shortName: operationId,
  method,
  path,
  requestSchema: undefined,
  responseSchemas: new Map(),
  parameters: [],
});

const route = createRouter([
  operation('GET', '/items', 'listItems'),
  operation('GET', '/items/{id}', 'getItem'),
  operation('DELETE', '/items/{id}', 'deleteItem'),
  operation('GET', '/items/special', 'getSpecial'),
  operation('GET', '/items/{id}/parts/{part}', 'getPart'),
]);

describe('createRouter', () => {
  it.each([
    ['GET', '/items', 'listItems', {}],
    ['GET', '/items/42', 'getItem', { id: '42' }],
    ['delete', '/items/42', 'deleteItem', { id: '42' }],
    ['GET', '/items/special', 'getSpecial', {}],
    ['GET', '/items/a%2Fb%20c', 'getItem', { id: 'a/b c' }],
    ['GET', '/items/%E0%A4%A', 'getItem', { id: '%E0%A4%A' }],
    ['GET', '/items/7/parts/x', 'getPart', { id: '7', part: 'x' }],
  ])('routes %s %s to %s with its path parameters', (method, path, operationId, params) => {
    const found = route(method, path);
    expect(found.kind === 'operation' && [found.operation.operationId, found.params]).toEqual([
      operationId,
      params,
    ]);
  });

  it.each([
    ['/items/', 'an empty parameter'],
    ['/items/7/parts', 'a missing segment'],
    ['/items/7/8', 'an extra segment'],
    ['/Items', 'another case'],
  ])('answers not-found for %s (%s)', (path) => {
    expect(route('GET', path)).toEqual({
      kind: 'not-found',
      known: ['/items', '/items/{id}', '/items/special', '/items/{id}/parts/{part}'],
    });
  });

  it('answers method-not-allowed with the methods of the matching template', () => {
    expect(route('PUT', '/items/42')).toEqual({ kind: 'method-not-allowed', allow: ['GET', 'DELETE'] });
    expect(route('DELETE', '/items/special')).toEqual({ kind: 'method-not-allowed', allow: ['GET'] });
  });
});
