import { describe, expect, it } from 'vitest';
import { findOperation } from '../../../src/pipeline/findOperation.js';
import { PipelineRequest } from '../../../src/pipeline/pipelineRequest.js';
import { ReadAnswers, readAnswer } from '../../../src/proxy/readAnswers.js';

const routed = (method: string) => {
  const request = new PipelineRequest(method, '/api/user', { bodySent: true });
  findOperation(request);
  return request;
};
const group = {
  team_id: 1,
  token: 'a'.repeat(64),
  name: 'Customer A',
  provided_id: 'customer-a',
  properties: null,
};
const sound = Buffer.from(JSON.stringify({ success: 1, new_user_group: false, user_group: group }));
const type = 'application/json';
const answered = (status: number, body: Buffer, contentType = type) => ({ status, contentType, body });

describe('readAnswer', () => {
  it('parses a sound answer and finds nothing wrong', () => {
    const read = readAnswer(routed('GET'), answered(200, sound), false);
    expect(read.diagnostics).toEqual([]);
    expect(read.text).toBe(sound.toString());
    expect(read.value).toEqual({ success: 1, new_user_group: false, user_group: group });
  });

  it('names what an answer that is not JSON was, and keeps its text as a JSON string', () => {
    const body = Buffer.from('<html>oops</html>');
    const read = readAnswer(routed('GET'), answered(200, body, 'text/html'), false);
    expect(read.value).toBeUndefined();
    expect(read.text).toBe(JSON.stringify('<html>oops</html>'));
    expect(read.diagnostics[0]?.message).toContain('text/html, status 200');
  });

  it('names a JSON answer sent as another type, or with none', () => {
    const plain = readAnswer(routed('GET'), answered(200, sound, 'text/plain'), false);
    expect(plain.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['UNSUPPORTED_MEDIA_TYPE', '/headers/content-type'],
    ]);
    const none = readAnswer(routed('GET'), { status: 200, contentType: undefined, body: sound }, false);
    expect(none.diagnostics[0]?.message).toBe(
      'the answer\'s body is JSON sent without a Content-Type; the service must send "Content-Type: application/json", the type the document gives every answer',
    );
    expect(
      readAnswer(routed('GET'), answered(200, sound, 'application/json;charset=UTF-8'), false).diagnostics,
    ).toEqual([]);
  });
});

describe('ReadAnswers', () => {
  it('reads the same bytes for the same operation and status once, and their value cannot be changed', () => {
    const answers = new ReadAnswers(false);
    const first = answers.read(routed('GET'), answered(200, sound));
    const again = answers.read(routed('GET'), answered(200, Buffer.from(sound)));
    expect(again).toBe(first);
    expect(Object.isFrozen((first.value as { user_group: object }).user_group)).toBe(true);
  });

  it('reads the same bytes again under another status, operation or content type, each with its own verdict', () => {
    const answers = new ReadAnswers(false);
    const ok = answers.read(routed('GET'), answered(200, sound));
    const refused = answers.read(routed('GET'), answered(404, sound));
    expect(ok.diagnostics).toEqual([]);
    expect(refused.diagnostics.length).toBeGreaterThan(0);
    expect(answers.read(routed('PUT'), answered(200, sound))).not.toBe(ok);
    expect(answers.read(routed('GET'), answered(200, sound, 'text/plain'))).not.toBe(ok);
  });

  it('keeps a strict and a lenient verdict apart: one memo per leniency', () => {
    const extra = Buffer.from(
      JSON.stringify({ success: 1, new_user_group: false, user_group: { ...group, x: 1 } }),
    );
    const strict = new ReadAnswers(false).read(routed('GET'), answered(200, extra));
    const lenient = new ReadAnswers(true).read(routed('GET'), answered(200, extra));
    expect(strict.diagnostics.length).toBeGreaterThan(0);
    expect(lenient.diagnostics).toEqual([]);
  });

  it('reads a large answer each time rather than keep it', () => {
    const answers = new ReadAnswers(false);
    const large = Buffer.from(
      JSON.stringify({
        success: 1,
        new_user_group: false,
        user_group: { ...group, name: 'n'.repeat(5_000) },
      }),
    );
    const first = answers.read(routed('GET'), answered(200, large));
    expect(answers.read(routed('GET'), answered(200, large))).not.toBe(first);
    expect(answers.read(routed('GET'), answered(200, large))).toEqual(first);
  });
});
