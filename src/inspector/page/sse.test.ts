/** The page's reader of server-sent events: whole frames out, however the bytes are cut. */
import { describe, expect, it } from 'vitest';
import { SseParser } from './sse.js';

const TEXT =
  'event: item\ndata: {"id":"req:1"}\n\n: keep-alive\n\nevent: clock\r\ndata: {"now":"2026-01-01T00:00:05.000Z"}\r\n\r\ndata: a\ndata: b\n\nevent: reset\ndata: {}\n\n';
const FRAMES = [
  { event: 'item', data: '{"id":"req:1"}' },
  { event: 'clock', data: '{"now":"2026-01-01T00:00:05.000Z"}' },
  { event: 'message', data: 'a\nb' },
  { event: 'reset', data: '{}' },
];

describe('SseParser', () => {
  it('reads item, clock and reset frames, skipping comments, with LF or CRLF lines', () => {
    expect(new SseParser().push(TEXT)).toEqual(FRAMES);
  });

  it('gives the same frames whatever the chunk boundaries', () => {
    for (const size of [1, 2, 3, 7, 16]) {
      const parser = new SseParser();
      const frames = [];
      for (let i = 0; i < TEXT.length; i += size) frames.push(...parser.push(TEXT.slice(i, i + size)));
      expect(frames, `chunks of ${size}`).toEqual(FRAMES);
    }
  });

  it('holds a frame back until its blank line arrives', () => {
    const parser = new SseParser();
    expect(parser.push('event: item\ndata: {"id":"x"}\n')).toEqual([]);
    expect(parser.push('\n')).toEqual([{ event: 'item', data: '{"id":"x"}' }]);
  });
});
