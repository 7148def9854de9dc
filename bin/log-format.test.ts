import { describe, expect, it } from 'vitest';
import type { JournalEntry } from '../src/index.js';
import { escapeControls, formatEntry } from './log-format.js';

const entry = (fields: Partial<JournalEntry>): JournalEntry => ({
  at: '2026-01-01T00:00:00.000Z',
  method: 'GET',
  path: '/v1/empresa',
  status: 200,
  companyId: null,
  idempotencyKey: null,
  replayed: false,
  requestId: 'b1d9e6b4-0000-4000-8000-000000000000',
  faultId: null,
  ...fields,
});

describe('escapeControls', () => {
  it('escapes C0 controls and DEL as \\xNN', () => {
    expect(escapeControls('a\nb\rc\td\x00e\x1b[2Jf\x7f')).toBe('a\\x0ab\\x0dc\\x09d\\x00e\\x1b[2Jf\\x7f');
  });

  it('escapes C1 controls (NEL, the 8-bit CSI) as \\xNN', () => {
    expect(escapeControls('\u0080a\u0085b\u009b2Jc\u009f')).toBe('\\x80a\\x85b\\x9b2Jc\\x9f');
  });

  it('escapes the line and paragraph separators and every bidirectional control as \\uNNNN', () => {
    expect(escapeControls('a\u2028b\u2029c')).toBe('a\\u2028b\\u2029c');
    const bidi = ['\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'];
    expect(bidi.map(escapeControls)).toEqual(['\\u061c', '\\u200e', '\\u200f', '\\u202a', '\\u202b', '\\u202c', '\\u202d', '\\u202e', '\\u2066', '\\u2067', '\\u2068', '\\u2069']);
  });

  it('doubles a backslash, so a client\'s literal "\\x1b" never reads as an escaped ESC', () => {
    expect(escapeControls('\\x1b')).toBe('\\\\x1b');
    expect(escapeControls('\\x1b')).not.toBe(escapeControls('\x1b'));
  });

  it('leaves printable text alone, accents, CJK, emoji and neighbours of the escaped ranges included', () => {
    const text = '/v1/produtos/ação-Ünïcode-商品-🙂 ~!@$&\'()*+,;=:[]\u00a0\u2027\u202f\u2065\u206a';
    expect(escapeControls(text)).toBe(text);
  });
});

describe('formatEntry', () => {
  const hostile = entry({ method: 'GET', path: '/v1/\nfake line\x1b[2J\u2028\u202egnp.exe', status: 404 });

  it('pretty: one line, the client\'s path and method escaped', () => {
    const line = formatEntry(hostile, 'pretty');
    expect(line).toBe('2026-01-01T00:00:00.000Z GET    /v1/\\x0afake line\\x1b[2J\\u2028\\u202egnp.exe → 404');
    expect(formatEntry(entry({ method: 'GE\rT\x1b' }), 'pretty')).toBe('2026-01-01T00:00:00.000Z GE\\x0dT\\x1b /v1/empresa → 200');
  });

  it('pretty: the flags of a replayed answer and of a fault', () => {
    expect(formatEntry(entry({ method: 'POST', path: '/v1/catalogos', status: 201, replayed: true, faultId: 'f_1' }), 'pretty')).toBe('2026-01-01T00:00:00.000Z POST   /v1/catalogos → 201 (replayed, fault f_1)');
  });

  it('json: one line that parses back to the entry, the path exactly as received', () => {
    const line = formatEntry(hostile, 'json');
    expect(line.split('\n')).toHaveLength(1);
    expect(line).not.toContain('\x1b');
    expect(JSON.parse(line)).toEqual(hostile);
  });
});
