import { describe, expect, it } from 'vitest';
import type { Group } from '../../../src/domain/model.js';
import { memoisedAnswer } from '../../../src/http/answerMemo.js';

const group: Group = {
  environment: 'Customer',
  team_id: 1,
  token: 'a'.repeat(64),
  name: 'G',
  provided_id: 'g',
  mapping: null,
  properties: null,
};

describe('memoisedAnswer', () => {
  it('serialises the answer of one group object once and sends that text again', () => {
    const first = memoisedAnswer(group, { success: 1, name: group.name });
    const again = memoisedAnswer(group, { success: 1, name: 'ignored: the group is unchanged' });
    expect(again).toBe(first);
    expect(first).toEqual({ text: '{"success":1,"name":"G"}', length: '24' });
  });

  it('serialises afresh for a changed group, which is a new object', () => {
    const before = memoisedAnswer(group, { name: group.name });
    const changed: Group = { ...group, name: 'Hé' };
    const after = memoisedAnswer(changed, { name: changed.name });
    expect(after).not.toBe(before);
    expect(after).toEqual({ text: '{"name":"Hé"}', length: '14' });
  });
});
