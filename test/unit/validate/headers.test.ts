import { describe, expect, it } from 'vitest';
import { checkContentType } from '../../../src/validate/headers.js';

describe('checkContentType', () => {
  it('says that curl sends a form type with -d, and how to send JSON, for application/x-www-form-urlencoded', () => {
    const found = checkContentType('application/x-www-form-urlencoded');
    expect(found).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', path: '/headers/content-type' });
    expect(found?.message).toContain('what curl sends with -d when no Content-Type is given');
    expect(found?.message).toContain("with curl, add -H 'Content-Type: application/json'");
  });

  it('names the type sent and the one to send for another type', () => {
    expect(checkContentType('text/plain')?.message).toBe(
      'Content-Type is "text/plain"; the body must be sent as "Content-Type: application/json"',
    );
  });

  it('accepts JSON in UTF-8', () => {
    expect(checkContentType('application/json; charset=utf-8')).toBeUndefined();
  });
});
