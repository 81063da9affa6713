import { describe, expect, it } from 'vitest';
import { atPointer, serviceDocument } from '../../../src/spec/loadDocument.js';

describe('atPointer', () => {
  const root = { 'a/b': { 'c~d': [10, 20] }, '~1': 'tilde-one', n: null };

  it('reads ~1 as a slash and ~0 as a tilde, in that order', () => {
    expect(atPointer(root, '/a~1b/c~0d/1')).toBe(20);
    expect(atPointer(root, '/~01')).toBe('tilde-one');
  });

  it('returns the root for the empty pointer and undefined where the path leads nowhere', () => {
    expect(atPointer(root, '')).toBe(root);
    expect(atPointer(root, '/missing/deeper')).toBeUndefined();
    expect(atPointer(root, '/n/x')).toBeUndefined();
    expect(atPointer(root, '/~1/length')).toBeUndefined();
  });

  it('finds an operation of the service document by its escaped path', () => {
    const found = atPointer(serviceDocument(), '/paths/~1api~1user/post/operationId');
    expect(typeof found).toBe('string');
  });
});
