import { describe, expect, it } from 'vitest';
import { requestHeadersOf } from '../../../src/store/requestHeaders.js';

describe('requestHeadersOf', () => {
  it.each([
    ['Token dev-customer-key', 'the Customer key', 'Token ‹16 characters: the Customer key›'],
    ['Bearer  dev-customer-key', undefined, 'Bearer ‹16 characters: matches no API key›'],
    ['dev-customer-key', undefined, '‹16 characters: no scheme; matches no API key›'],
    ['', undefined, '‹0 characters: no scheme; matches no API key›'],
  ])('shows Authorization %j as its scheme and what it matched', (value, matched, shown) => {
    expect(requestHeadersOf(['Authorization', value], matched)).toEqual([
      { name: 'Authorization', value: shown },
    ]);
  });

  it('keeps other headers as sent, in order and repeated, and hides secret ones but their length', () => {
    const raw = [
      'Host',
      '127.0.0.1',
      'Content-Type',
      'application/json',
      'content-type',
      'text/plain',
      'Proxy-Authorization',
      'Basic dXNlcjpwYXNz',
      'Cookie',
      'session=1',
      'X-Admin-Key',
      'secret',
      'X-Session-Token',
      'abc',
    ];
    expect(requestHeadersOf(raw, 'the Customer key')).toEqual([
      { name: 'Host', value: '127.0.0.1' },
      { name: 'Content-Type', value: 'application/json' },
      { name: 'content-type', value: 'text/plain' },
      { name: 'Proxy-Authorization', value: 'Basic ‹12 characters, hidden›' },
      { name: 'Cookie', value: '‹9 characters, hidden›' },
      { name: 'X-Admin-Key', value: '‹6 characters, hidden›' },
      { name: 'X-Session-Token', value: '‹3 characters, hidden›' },
    ]);
  });
});
