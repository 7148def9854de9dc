import { describe, expect, it } from 'vitest';
import type { ControlActivity, DeliveryActivity, FindingActivity, JobActivity, RequestActivity } from '../src/index.js';
import { escapeControls, formatActivity, jsonLine, MAX_SHOWN, shown, wantsColor } from './log-format.js';

const request = (fields: Partial<RequestActivity>): RequestActivity => ({
  kind: 'request',
  at: '2026-01-01T00:00:00.000Z',
  method: 'GET',
  path: '/v1/empresa',
  status: 200,
  requestId: 'b1d9e6b4-0000-4000-8000-000000000000',
  companyId: null,
  idempotencyKey: null,
  replayed: false,
  faultId: null,
  error: null,
  durationMs: 0,
  ...fields,
});

const delivery = (fields: Partial<DeliveryActivity>): DeliveryActivity => ({
  kind: 'delivery',
  at: '2026-01-01T00:00:05.000Z',
  companyId: 'c1',
  eventId: 'e1',
  eventType: 'webhook.teste',
  attempt: 2,
  cycle: 1,
  attemptInCycle: 2,
  attemptsPerCycle: 8,
  url: 'https://hooks.example.com/x',
  outcome: 'falhou',
  failure: 'status_nao_2xx',
  status: 503,
  durationMs: 0,
  nextAttemptAt: '2026-01-01T00:05:05.000Z',
  eventState: 'pendente',
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
    const bidi = [
      '\u061c',
      '\u200e',
      '\u200f',
      '\u202a',
      '\u202b',
      '\u202c',
      '\u202d',
      '\u202e',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
    ];
    expect(bidi.map(escapeControls)).toEqual([
      '\\u061c',
      '\\u200e',
      '\\u200f',
      '\\u202a',
      '\\u202b',
      '\\u202c',
      '\\u202d',
      '\\u202e',
      '\\u2066',
      '\\u2067',
      '\\u2068',
      '\\u2069',
    ]);
  });

  it('doubles a backslash, so a client\'s literal "\\x1b" never reads as an escaped ESC', () => {
    expect(escapeControls('\\x1b')).toBe('\\\\x1b');
    expect(escapeControls('\\x1b')).not.toBe(escapeControls('\x1b'));
  });

  it('leaves printable text alone, accents, CJK, emoji and neighbours of the escaped ranges included', () => {
    const text = "/v1/produtos/ação-Ünïcode-商品-🙂 ~!@$&'()*+,;=:[]\u00a0\u2027\u202f\u2065\u206a";
    expect(escapeControls(text)).toBe(text);
  });
});

describe('formatActivity', () => {
  const hostile = request({ method: 'GET', path: '/v1/\nfake line\x1b[2J\u2028\u202egnp.exe', status: 404 });

  it("pretty request: one line, the client's path and method escaped", () => {
    expect(formatActivity(hostile, 'pretty')).toBe(
      '2026-01-01T00:00:00.000Z request  GET    /v1/\\x0afake line\\x1b[2J\\u2028\\u202egnp.exe → 404',
    );
    expect(formatActivity(request({ method: 'GE\rT\x1b' }), 'pretty')).toBe(
      '2026-01-01T00:00:00.000Z request  GE\\x0dT\\x1b /v1/empresa → 200',
    );
  });

  it("pretty request: the error code and path (escaped: the field names are the client's), a replay, a fault, a held time", () => {
    expect(
      formatActivity(
        request({
          method: 'POST',
          path: '/v1/catalogos',
          status: 422,
          error: { codigo: 'valor_invalido', caminho: 'body.a\nb' },
        }),
        'pretty',
      ),
    ).toBe('2026-01-01T00:00:00.000Z request  POST   /v1/catalogos → 422 valor_invalido at body.a\\x0ab');
    expect(
      formatActivity(
        request({ method: 'POST', path: '/v1/catalogos', status: 201, replayed: true, faultId: 'f_1' }),
        'pretty',
      ),
    ).toBe('2026-01-01T00:00:00.000Z request  POST   /v1/catalogos → 201 (replayed, fault f_1)');
    expect(
      formatActivity(
        request({
          status: 503,
          error: { codigo: 'servico_indisponivel', caminho: null },
          faultId: 'flt_2',
          durationMs: 5000,
        }),
        'pretty',
      ),
    ).toBe('2026-01-01T00:00:00.000Z request  GET    /v1/empresa → 503 servico_indisponivel (fault flt_2, 5000ms)');
  });

  it('pretty control: the operation and what it did, the detail escaped', () => {
    const control: ControlActivity = {
      kind: 'control',
      at: '2026-01-01T00:00:00.000Z',
      method: 'POST',
      path: '/_emulator/faults',
      status: 201,
      operation: 'addFault',
      detail: 'fault flt_1: api path=/v1/\x1b[2J → status=503, once',
      error: null,
      scope: 'emulator',
      companyId: null,
      faultId: 'flt_1',
    };
    expect(formatActivity(control, 'pretty')).toBe(
      '2026-01-01T00:00:00.000Z control  POST   /_emulator/faults → 201 addFault: fault flt_1: api path=/v1/\\x1b[2J → status=503, once',
    );
    expect(
      formatActivity(
        {
          ...control,
          path: '/_emulator/faults/flt_9',
          method: 'DELETE',
          status: 404,
          operation: 'removeFault',
          detail: null,
          error: { codigo: 'falha_nao_encontrada', caminho: 'path.id' },
        },
        'pretty',
      ),
    ).toBe(
      '2026-01-01T00:00:00.000Z control  DELETE /_emulator/faults/flt_9 → 404 falha_nao_encontrada at path.id (removeFault)',
    );
    expect(
      formatActivity(
        {
          ...control,
          path: '/_emulator/nope',
          status: 404,
          operation: null,
          detail: null,
          error: { codigo: 'rota_nao_encontrada', caminho: null },
        },
        'pretty',
      ),
    ).toBe('2026-01-01T00:00:00.000Z control  POST   /_emulator/nope → 404 rota_nao_encontrada');
  });

  it('pretty delivery: the event, the attempt of its cycle, the URL, the outcome, the duration and the next attempt', () => {
    expect(formatActivity(delivery({}), 'pretty')).toBe(
      '2026-01-01T00:00:05.000Z delivery webhook.teste e1 attempt 2/8 → https://hooks.example.com/x: falhou 503 status_nao_2xx (0ms), next 2026-01-01T00:05:05.000Z',
    );
    expect(
      formatActivity(
        delivery({
          attempt: 9,
          cycle: 2,
          attemptInCycle: 1,
          outcome: 'incerta',
          failure: 'tempo_esgotado',
          status: null,
          durationMs: 15000,
          nextAttemptAt: null,
        }),
        'pretty',
      ),
    ).toBe(
      '2026-01-01T00:00:05.000Z delivery webhook.teste e1 attempt 9 (1/8 of cycle 2) → https://hooks.example.com/x: incerta tempo_esgotado (15000ms)',
    );
  });

  it('pretty job: the task, its record and a fault that took it', () => {
    const job: JobActivity = {
      kind: 'job',
      at: '2026-01-01T00:01:00.000Z',
      task: 'ingestao.validacao',
      companyId: 'c1',
      subjectId: 'i1',
      fault: 'delayed',
    };
    expect(formatActivity(job, 'pretty')).toBe(
      '2026-01-01T00:01:00.000Z job      ingestao.validacao i1 (fault: delayed)',
    );
  });

  it("pretty finding: the rule, its statements, what happened (the client's path escaped) and the fix", () => {
    const finding: FindingActivity = {
      kind: 'finding',
      at: '2026-01-01T00:00:00.000Z',
      rule: 'stale-etag-retried',
      companyId: 'c1',
      statements: ['REQ-05'],
      message: 'PATCH /v1/produtos/\x1b[2J (request r2) sent If-Match "a" again.',
      requestIds: ['r1', 'r2'],
      eventIds: [],
      fix: 'Read it again.',
    };
    expect(formatActivity(finding, 'pretty')).toBe(
      '2026-01-01T00:00:00.000Z finding  stale-etag-retried (REQ-05): PATCH /v1/produtos/\\x1b[2J (request r2) sent If-Match "a" again. Fix: Read it again.',
    );
    expect(formatActivity(finding, 'pretty', true)).toBe(
      '\x1b[2m2026-01-01T00:00:00.000Z\x1b[0m \x1b[31mfinding \x1b[0m \x1b[33mstale-etag-retried\x1b[0m (REQ-05): PATCH /v1/produtos/\\x1b[2J (request r2) sent If-Match "a" again. Fix: Read it again.',
    );
    expect(JSON.parse(formatActivity(finding, 'json'))).toEqual(finding);
  });

  it("pretty in colour: the same text with SGR colours around the parts, and no escape of the client's own", () => {
    const line = formatActivity(
      request({ path: '/v1/\x1b[31m', status: 503, error: { codigo: 'servico_indisponivel', caminho: null } }),
      'pretty',
      true,
    );
    expect(line).toBe(
      '\x1b[2m2026-01-01T00:00:00.000Z\x1b[0m \x1b[34mrequest \x1b[0m GET    /v1/\\x1b[31m → \x1b[31m503 servico_indisponivel\x1b[0m',
    );
    expect(line.replace(/\x1b\[\d+m/g, '')).toBe(
      formatActivity(
        request({ path: '/v1/\x1b[31m', status: 503, error: { codigo: 'servico_indisponivel', caminho: null } }),
        'pretty',
      ),
    );
  });

  it('json: one line that parses back to the entry, the path exactly as received', () => {
    const line = formatActivity(hostile, 'json');
    expect(line.split('\n')).toHaveLength(1);
    expect(line).not.toContain('\x1b');
    expect(JSON.parse(line)).toEqual(hostile);
  });
});

describe('formatActivity of an entry a server sent (logs tail)', () => {
  it('escapes every text of it, the fields the emulator makes itself included', () => {
    const at = '2026\x1b[2J';
    expect(formatActivity(request({ at }), 'pretty')).toBe('2026\\x1b[2J request  GET    /v1/empresa → 200');
    const control: ControlActivity = {
      kind: 'control',
      at: '2026-01-01T00:00:00.000Z',
      method: 'GET',
      path: '/_emulator/faults',
      status: 200,
      operation: 'list\x1b]0;x\x07',
      detail: null,
      error: null,
      scope: 'emulator',
      companyId: null,
      faultId: null,
    };
    const line = `${control.at} control  GET    /_emulator/faults → 200 (list\\x1b]0;x\\x07)`;
    expect(formatActivity(control, 'pretty')).toBe(line);
    const hostile = delivery({ eventId: 'e1\n', failure: 'x\r', nextAttemptAt: 'y\u2028' });
    expect(formatActivity(hostile, 'pretty')).toBe(
      '2026-01-01T00:00:05.000Z delivery webhook.teste e1\\x0a attempt 2/8 → https://hooks.example.com/x: ' +
        'falhou 503 x\\x0d (0ms), next y\\u2028',
    );
  });
});

describe('jsonLine', () => {
  it("is JSON.stringify's line, DEL, C1, the separators and the bidi controls as \\u escapes: the same value", () => {
    const value = { text: 'a\x1b[2J\u009b2J\u2028\u202e\x7f\\"', n: 1 };
    const line = jsonLine(value);
    expect(line).toBe('{"text":"a\\u001b[2J\\u009b2J\\u2028\\u202e\\u007f\\\\\\"","n":1}');
    expect(JSON.parse(line)).toEqual(value);
    expect(escapeControls(line)).toBe(line.replaceAll('\\', '\\\\'));
  });
});

describe('shown', () => {
  it('escapes a text as the log does, and cuts a long one at MAX_SHOWN characters, never inside an escape', () => {
    expect(shown('a\nb')).toBe('a\\x0ab');
    expect(shown('x'.repeat(MAX_SHOWN))).toBe('x'.repeat(MAX_SHOWN));
    expect(shown('x'.repeat(MAX_SHOWN + 5))).toBe(`${'x'.repeat(MAX_SHOWN)}… (5 more characters)`);
    // 'ab' and three escapes of four characters fit in 14; the fourth does not.
    expect(shown('ab\x1b\x1b\x1b\x1b\x1bcd', 14)).toBe('ab\\x1b\\x1b\\x1b… (4 more characters)');
    expect(shown('🙂🙂🙂', 4)).toBe('🙂🙂… (2 more characters)');
  });
});

describe('wantsColor', () => {
  it('colours a terminal only; NO_COLOR (non-empty) turns it off; FORCE_COLOR turns it on, "0" or "false" off', () => {
    expect(wantsColor(true, {})).toBe(true);
    expect(wantsColor(false, {})).toBe(false);
    expect(wantsColor(true, { NO_COLOR: '1' })).toBe(false);
    expect(wantsColor(true, { NO_COLOR: '' })).toBe(true);
    expect(wantsColor(false, { FORCE_COLOR: '1' })).toBe(true);
    expect(wantsColor(false, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(true);
    expect(wantsColor(true, { FORCE_COLOR: '0' })).toBe(false);
    expect(wantsColor(true, { FORCE_COLOR: 'false' })).toBe(false);
  });
});
