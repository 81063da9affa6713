import { describe, expect, it } from 'vitest';
import type { Group } from '../../../src/domain/model.js';
import { AnswerMemo } from '../../../src/http/answerMemo.js';

const group: Group = {
  environment: 'Customer',
  team_id: 1,
  token: 'a'.repeat(64),
  name: 'G',
  provided_id: 'g',
  mapping: null,
  properties: null,
};

describe('AnswerMemo', () => {
  it('serialises the answer of one group object once and sends that text again', () => {
    const memo = new AnswerMemo();
    const first = memo.answer(group, { success: 1, name: group.name });
    const again = memo.answer(group, { success: 1, name: 'ignored: the group is unchanged' });
    expect(again).toBe(first);
    expect(first).toEqual({ text: '{"success":1,"name":"G"}', length: '24' });
  });

  it('serialises afresh for a changed group, which is a new object', () => {
    const memo = new AnswerMemo();
    const before = memo.answer(group, { name: group.name });
    const changed: Group = { ...group, name: 'Hé' };
    const after = memo.answer(changed, { name: changed.name });
    expect(after).not.toBe(before);
    expect(after).toEqual({ text: '{"name":"Hé"}', length: '14' });
  });

  it('keeps the answers of the 1,000 groups sent most recently, dropping the least recently sent', () => {
    const memo = new AnswerMemo();
    const hot = memo.answer(group, { name: 'hot' });
    const cold = { ...group, name: 'cold' };
    const coldFirst = memo.answer(cold, { name: 'cold' });
    for (let i = 0; i < 999; i++) {
      memo.answer({ ...group, team_id: i + 2 }, { i });
      if (i % 100 === 0) expect(memo.answer(group, { name: 'again' })).toBe(hot);
    }
    expect(memo.answer(group, { name: 'again' })).toBe(hot);
    expect(memo.answer(cold, { name: 'cold' })).not.toBe(coldFirst);
  });

  it('is one per server: another memo serialises the same group afresh', () => {
    const first = new AnswerMemo().answer(group, { name: 'G' });
    expect(new AnswerMemo().answer(group, { name: 'G' })).not.toBe(first);
  });
});
