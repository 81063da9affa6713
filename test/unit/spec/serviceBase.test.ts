import { describe, expect, it } from 'vitest';
import { operationPathInBase } from '../../../src/spec/serviceBase.js';

describe('operationPathInBase', () => {
  it.each([
    ['http://127.0.0.1:4010/api/user', '/api/user/api/user', 'http://127.0.0.1:4010'],
    ['http://127.0.0.1:4010/api/user/', '/api/user/api/user', 'http://127.0.0.1:4010'],
    ['https://staging.example.com/svc/api/user', '/svc/api/user/api/user', 'https://staging.example.com/svc'],
  ])('names %s a base URL that ends in the path each call adds', (text, calls, base) => {
    expect(operationPathInBase(new URL(text), '--target')).toBe(
      `--target "${new URL(text).href}" ends in /api/user, the path each call adds to the base URL (the calls would go to ${calls}); give the service's base URL, e.g. ${base}`,
    );
  });

  it.each([
    'http://127.0.0.1:4010',
    'http://127.0.0.1:4010/',
    'https://staging.example.com/svc',
    'http://h/api/users',
  ])('accepts %s', (text) => {
    expect(operationPathInBase(new URL(text), '--target')).toBeUndefined();
  });
});
