import { describe, expect, it } from 'vitest';
import { colourWanted } from '../../../src/cli/colourless.js';

describe('colourWanted', () => {
  it.each([
    [{}, true, true],
    [{}, false, false],
    [{}, undefined, false],
    [{ NO_COLOR: '1' }, true, false],
    [{ NO_COLOR: '' }, true, true],
    [{ USER_GROUP_MOCK_COLOURLESS_CHILD: '1' }, false, true],
  ])('with %j and a terminal %s says %s', (env, isTty, wanted) => {
    expect(colourWanted(env, isTty)).toBe(wanted);
  });
});
