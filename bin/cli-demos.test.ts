/**
 * The built CLI's teaching demos (dist/bin/catalog-emulator.js; `npm test` builds before vitest) as a user runs
 * them: real processes, each killed after its test. Each demo runs once for the file, and the tests of that demo
 * read its output (demo()); the test of its determinism runs it once more. Beside bin/cli.test.ts (serve and the
 * other commands), so that two workers share the CLI's tests.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, killAll, runCli, type Run } from './cli-run.js';

const SPAWN_TIMEOUT_MS = 10_000;
const TEST_TIMEOUT_MS = 20_000;

const cli = (args: string[], env: Record<string, string> = {}): Run =>
  runCli(args, { env, timeoutMs: SPAWN_TIMEOUT_MS });

/** `catalog-emulator demo ARGS`, started once for the file: each test of a demo reads the same run. */
const started = new Map<string, Run>();
function demo(...args: string[]): Run {
  const key = args.join(' ');
  let run = started.get(key);
  if (run === undefined) started.set(key, (run = cli(['demo', ...args])));
  return run;
}

beforeAll(assertBuilt);

afterEach(killAll);

describe('catalog-emulator demo', { timeout: TEST_TIMEOUT_MS }, () => {
  it('lists the demos, idempotent-retry among them', async () => {
    const run = demo();
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.stdout).toMatch(/^\s+idempotent-retry\s+\S.*$/m);
  });

  it('lists the six demos, one line each with a summary', async () => {
    const run = demo();
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const listed = run.stdout
      .split('\n')
      .filter((line) => /^\s+\S+\s+\S/.test(line))
      .map((line) => line.trim().split(/\s+/)[0]);
    expect(listed).toEqual([
      'idempotent-retry',
      'webhook-retries',
      'signature-check',
      'surveillance-capacity',
      'catalog-deletion',
      'ingestion',
    ]);
    expect(run.stderr).toBe('');
  });

  it('demo idempotent-retry shows the lost 503, the replayed 200 and the 412, and exits 0', async () => {
    const run = demo('idempotent-retry');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const out = run.stdout;
    expect(out).toMatch(/← 503\n.*"codigo":"servico_indisponivel"/);
    expect(out).toContain('The client saw 503.');
    expect(out).toMatch(/← 200\n(?:\s+\S+: .*\n)*\s+idempotent-replayed: true\n/);
    expect(out).toContain('200 with idempotent-replayed: true: the stored answer');
    expect(out).toContain('versao is 2: the change was applied exactly once.');
    expect(out).toMatch(/← 412\n.*"codigo":"precondicao_falhou"/);
    expect(out).toContain('412 precondicao_falhou: nothing was changed by this request.');
    expect(out).toMatch(/PATCH\s+\/v1\/produtos\/\S+ → 503 \(fault flt_1\)/);
    expect(out).toMatch(/PATCH\s+\/v1\/produtos\/\S+ → 200 \(replayed\)/);
    expect(out).toMatch(/PATCH\s+\/v1\/produtos\/\S+ → 412 \(fault flt_2\)/);
    expect(run.stderr).toBe('');
  });

  it('demo idempotent-retry prints the same output every run (seeded ids, virtual clock)', async () => {
    const strip = (text: string) => text.replace(/"request_id":"[^"]+"/g, '"request_id":"…"');
    const first = demo('idempotent-retry');
    const second = cli(['demo', 'idempotent-retry']);
    await Promise.all([first.exited, second.exited]);
    expect(strip(second.stdout)).toBe(strip(first.stdout));
  });

  it('demo nope fails with the list of demos', async () => {
    const run = demo('nope');
    const { code } = await run.exited;
    expect(code).toBe(2);
    expect(run.stderr).toContain(
      'no demo "nope" (demos: idempotent-retry, webhook-retries, signature-check, surveillance-capacity, catalog-deletion, ingestion)',
    );
  });
});

describe('catalog-emulator demo webhook-retries', { timeout: TEST_TIMEOUT_MS }, () => {
  /** The retry schedule (waits 5 s, 5 min, 30 min, 2 h, 5 h, 7 h, 8 h from the end of each attempt), as offsets from the first. */
  const OFFSETS = ['+0:00:00', '+0:00:05', '+0:05:05', '+0:35:05', '+2:35:05', '+7:35:05', '+14:35:05', '+22:35:05'];
  const INSTANTS = ['00:00:00', '00:00:05', '00:05:05', '00:35:05', '02:35:05', '07:35:05', '14:35:05', '22:35:05'].map(
    (t) => `2026-01-01T${t}.000Z`,
  );

  it('exits 0 and narrates 8 attempts on the schedule, 7 answered 503 and the 8th 200, as each happens', async () => {
    const run = demo('webhook-retries');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const out = run.stdout;
    expect(out).toMatch(/→ PUT \/v1\/webhook\n\s+idempotency-key: \S+\n\s+if-none-match: \*\n.*\n\s+← 201\n/);
    expect(out).toMatch(/"segredo":"svc_whsec_[A-Za-z0-9_-]{43}"/);
    expect(out).toMatch(/→ POST \/v1\/webhook\/testes\n\s+idempotency-key: \S+\n\s+if-match: "[^"]+"\n\s+← 202\n/);
    const live = [
      ...out.matchAll(
        /^\s+2026-01-01 (\d\d:\d\d:\d\d) \((\+[\d:]+)\)\s+attempt (\d+): signature ok, the receiver answers (\d+)$/gm,
      ),
    ].map((m) => [m[2], m[3], m[4]]);
    // Eight attempts of the first cycle, then the resend's attempt 9 (step 6).
    expect(live).toEqual([
      ...OFFSETS.map((offset, i) => [offset, String(i + 1), i < 7 ? '503' : '200']),
      ['+22:35:05', '9', '200'],
    ]);
    // Each attempt is followed by the event as read after it: pendente with the next attempt, then entregue.
    for (let i = 1; i < 8; i++)
      expect(out).toContain(
        `→ event pendente, tentativas_ciclo ${i}, next at 2026-01-01 ${INSTANTS[i]!.slice(11, 19)} (${OFFSETS[i]})`,
      );
    expect(out).toContain('→ event entregue, tentativas_ciclo 8\n');
    expect(run.stderr).toBe('');
  });

  it('prints the attempt table (8 rows, 7 falhou status_nao_2xx 503, the 8th entregue 200 at +22:35:05) and the final entregue', async () => {
    const run = demo('webhook-retries');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const out = run.stdout;
    expect(out).toMatch(/^\s+tentativa\s+iniciada_em\s+\+ first\s+estado\s+codigo_falha\s+status_http$/m);
    const rows = [...out.matchAll(/^\s+(\d+)\s+(2026-\S+)\s+(\+[\d:]+)\s+(\S+)\s+(\S+)\s+(\S+)$/gm)].map((m) =>
      m.slice(1),
    );
    expect(rows).toEqual(
      INSTANTS.map((instant, i) => [
        String(i + 1),
        instant,
        OFFSETS[i],
        i < 7 ? 'falhou' : 'entregue',
        i < 7 ? 'status_nao_2xx' : '-',
        i < 7 ? '503' : '200',
      ]),
    );
    expect(out).toContain(
      'The event: estado entregue, tentativas_totais 8, status_http 200, terminado_em 2026-01-01T22:35:05.000Z.',
    );
  });

  it('shows a resend accepted (202) and delivered at once as attempt 9 of a new cycle', async () => {
    const run = demo('webhook-retries');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const out = run.stdout;
    expect(out).toMatch(
      /→ POST \/v1\/webhook\/eventos\/[0-9a-f-]{36}\/reenvios\n\s+idempotency-key: \S+\n\s+if-match: "[^"]+"\n\s+← 202\n/,
    );
    expect(out).toMatch(/2026-01-01 22:35:05 \(\+22:35:05\)\s+attempt 9: signature ok, the receiver answers 200\n/);
    expect(out).toContain('Delivered at once: event entregue, tentativas_ciclo 1, tentativas_totais 9.');
    expect(out.split('\n').length).toBeLessThanOrEqual(120);
  });

  it('prints the same output every run (seeded ids and secret, virtual clock)', async () => {
    const first = demo('webhook-retries');
    const second = cli(['demo', 'webhook-retries']);
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(await second.exited).toEqual({ code: 0, signal: null });
    expect(first.stdout).toContain('attempt 8');
    expect(second.stdout).toBe(first.stdout);
  });
});

describe('catalog-emulator demo signature-check', { timeout: TEST_TIMEOUT_MS }, () => {
  it('exits 0 and shows the captured delivery with its three signed headers and exact body', async () => {
    const run = demo('signature-check');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const out = run.stdout;
    const id = out.match(/service-event-id: ([0-9a-f-]{36})\n/)?.[1];
    expect(id).toBeDefined();
    expect(out).toMatch(/service-timestamp: 1767225600\n/); // 2026-01-01T00:00:00Z, the virtual start
    expect(out).toMatch(/service-signature: v1=[0-9a-f]{64}\n/);
    expect(out).toContain(
      `{"id":"${id}","versao":1,"empresa":"11222333","ocorridoEm":"2026-01-01T00:00:00.000Z","dados":{"tipo":"webhook.teste"}}`,
    );
    expect(run.stderr).toBe('');
  });

  it('shows ok for the genuine delivery and the reason and message for each altered copy', async () => {
    const run = demo('signature-check');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const out = run.stdout;
    expect(out).toMatch(/the genuine delivery\s+→ ok: webhook\.teste [0-9a-f-]{36}\n/);
    expect(out).toMatch(
      /body edited \(tipo changed\)\s+→ assinatura_invalida\n\s+no "v1=" signature in Service-Signature matches/,
    );
    expect(out).toMatch(/signature, last hex flipped\s+→ assinatura_invalida\n/);
    expect(out).toMatch(
      /replayed 10 minutes later\s+→ timestamp_fora_da_tolerancia\n\s+Service-Timestamp is 600 s in the past, beyond the tolerance of 300 s\./,
    );
    expect(out).toMatch(/checked with another secret\s+→ assinatura_invalida\n/);
    expect(out).toMatch(
      /signature header stripped\s+→ cabecalho_ausente\n\s+missing or empty header\(s\): Service-Signature\./,
    );
  });

  it('shows a verifying receiver rejecting each tamper delivery fault, then accepting the retry', async () => {
    const run = demo('signature-check');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const out = run.stdout;
    for (const tamper of ['signature', 'body', 'timestamp'])
      expect(out).toMatch(
        new RegExp(
          `emu\\.faults\\.add\\(\\{ target: 'delivery', effect: \\{ tamper: '${tamper}' \\} \\}\\) → flt_\\d+; POST /v1/webhook/testes → 202\\n`,
        ),
      );
    expect(out).toMatch(/^\s+tamper\s+attempt 1\s+attempt 2 \(retry\)\s+event$/m);
    expect(out).toMatch(/^\s+signature\s+assinatura_invalida\s+ok\s+entregue$/m);
    expect(out).toMatch(/^\s+body\s+assinatura_invalida\s+ok\s+entregue$/m);
    expect(out).toMatch(/^\s+timestamp\s+timestamp_fora_da_tolerancia\s+ok\s+entregue$/m);
    expect(out.match(/the receiver: (assinatura_invalida|timestamp_fora_da_tolerancia), answers 401\n/g)).toHaveLength(
      3,
    );
  });

  it('ends with what a receiver must do', async () => {
    const run = demo('signature-check');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const tail = run.stdout.slice(run.stdout.indexOf('What a receiver must do'));
    for (const rule of [
      'before parsing the JSON',
      'exact body bytes',
      '5 minutes',
      'constant time',
      'same transaction',
    ])
      expect(tail).toContain(rule);
    expect(run.stdout.split('\n').length).toBeLessThanOrEqual(120);
  });

  it('prints the same output every run (seeded ids and secrets, virtual clock)', async () => {
    const first = demo('signature-check');
    const second = cli(['demo', 'signature-check']);
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(await second.exited).toEqual({ code: 0, signal: null });
    expect(first.stdout).toContain('What a receiver must do');
    expect(second.stdout).toBe(first.stdout);
  });
});

describe('catalog-emulator demo surveillance-capacity', { timeout: TEST_TIMEOUT_MS }, () => {
  it('exits 0 and explains each counter of GET /v1/empresa/vigilancia (5 products, capacity 3, nothing selected)', async () => {
    const run = demo('surveillance-capacity');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const out = run.stdout;
    expect(out).toContain(
      '{"cadastrados":5,"selecionados":0,"elegiveis":5,"vagas":3,"cobertura":"sem_selecao","exige_selecao":true,"modo":"selecao","versao":1,"capacidade":3,"direito_ativo":true}',
    );
    expect(out).toContain('cadastrados 5: active products.');
    expect(out).toContain('elegiveis 5: active and linked to an active catalog.');
    expect(out).toContain('selecionados 0: watched now');
    expect(out).toContain('vagas 3 = capacidade 3 − selecionados.');
    expect(out).toContain('cobertura sem_selecao');
    expect(out).toContain('exige_selecao true: elegiveis 5 > capacidade 3');
    expect(run.stderr).toBe('');
  });

  it('selects 3 (200 parcial), then refuses a 4th and mode todos with 409 capacidade_insuficiente, the ETag unchanged', async () => {
    const run = demo('surveillance-capacity');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const out = run.stdout;
    const accepted = out.match(
      /→ PATCH \/v1\/empresa\/vigilancia\n(?:\s+\S+: .*\n)+\s+\{"modo":"selecao","adicionar":\[("[0-9a-f-]{36}",?){3}\]\}\n\s+← 200\n\s+etag: ("[0-9a-f]+")\n\s+(\{.*\})\n/,
    );
    expect(accepted).not.toBeNull();
    const etag = accepted![2]!;
    expect(JSON.parse(accepted![3]!)).toMatchObject({ selecionados: 3, vagas: 0, cobertura: 'parcial', versao: 2 });
    expect(out.match(/← 409\n\s+\{"erro":\{"codigo":"capacidade_insuficiente"/g)).toHaveLength(2);
    expect(out).toContain(
      `409 capacidade_insuficiente. GET again: ETag ${etag} (the same), selecionados 3: nothing changed.`,
    );
    expect(out).toContain('409 capacidade_insuficiente; still modo selecao, versao 2, the same ETag: true.');
  });

  it('cuts the capacity to 2: capacidade_excedida, and vigilancia.degradada is delivered only once the clock moves', async () => {
    const run = demo('surveillance-capacity');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const out = run.stdout;
    expect(out).toContain('GET: selecionados 3 > capacidade 2, vagas 0, cobertura capacidade_excedida.');
    expect(out).toMatch(/the receiver has 0 events\. emu\.clock\.advance\(0\):\n\s+received vigilancia\.degradada: /);
    expect(out).toContain(
      'received vigilancia.degradada: {"tipo":"vigilancia.degradada","cobertura":"capacidade_excedida","coberturaAnterior":"parcial","selecionados":3,"capacidade":2}',
    );
  });

  it('restores the capacity to 5 through the controls (vigilancia.restabelecida), then accepts mode todos (integral)', async () => {
    const run = demo('surveillance-capacity');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const out = run.stdout;
    expect(out).toMatch(/→ PATCH \/_emulator\/companies\/[0-9a-f-]{36}\n\s+\{"surveillanceCapacity":5\}\n\s+← 200\n/);
    expect(out).toContain(
      'received vigilancia.restabelecida: {"tipo":"vigilancia.restabelecida","cobertura":"parcial","coberturaAnterior":"capacidade_excedida","selecionados":3,"capacidade":5}',
    );
    expect(out).toMatch(
      /\{"modo":"todos"\}\n\s+← 200\n\s+etag: "[0-9a-f]+"\n\s+\{"cadastrados":5,"selecionados":5,"elegiveis":5,"vagas":0,"cobertura":"integral","exige_selecao":false,"modo":"todos","versao":3,/,
    );
    expect(out.match(/received vigilancia\./g)).toHaveLength(2);
  });

  it('ends with the cobertura over the story, each event in its row, in under 120 lines', async () => {
    const run = demo('surveillance-capacity');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const out = run.stdout;
    const tail = out.slice(out.indexOf('The cobertura over the story:'));
    const rows = [...tail.matchAll(/^ {2}(.+?)\s{2,}(selecao|todos)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)$/gm)].map((m) =>
      m.slice(1),
    );
    expect(rows).toEqual([
      ['start', 'selecao', '0', '3', 'sem_selecao', '-'],
      ['select 3', 'selecao', '3', '3', 'parcial', '-'],
      ['add 1; todos (409)', 'selecao', '3', '3', 'parcial', '-'],
      ['capacity 2', 'selecao', '3', '2', 'capacidade_excedida', 'vigilancia.degradada'],
      ['capacity 5', 'selecao', '3', '5', 'parcial', 'vigilancia.restabelecida'],
      ['modo todos', 'todos', '5', '5', 'integral', '-'],
    ]);
    expect(out.split('\n').length).toBeLessThanOrEqual(120);
  });

  it('prints the same output every run (seeded ids, virtual clock)', async () => {
    const first = demo('surveillance-capacity');
    const second = cli(['demo', 'surveillance-capacity']);
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(await second.exited).toEqual({ code: 0, signal: null });
    expect(first.stdout).toContain('vigilancia.restabelecida');
    expect(second.stdout).toBe(first.stdout);
  });
});

describe('catalog-emulator demo catalog-deletion', { timeout: TEST_TIMEOUT_MS }, () => {
  it('exits 0 and narrates the preview: 3 products, 2 exclusive, 1 shared, 1 selection removed, antes and depois', async () => {
    const run = demo('catalog-deletion');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const out = run.stdout;
    expect(out).toMatch(/branch CNPJ 11222333000262 /);
    expect(out).toMatch(/→ GET \/v1\/catalogos\/[0-9a-f-]{36}\/impacto-exclusao\n\s+← 200\n\s+etag: "x[0-9a-f]{16}"\n/);
    expect(out).toContain('produtos 3 linked: exclusivos 2 (only in A) and compartilhados 1');
    expect(out).toContain('produtos_desativados 2');
    expect(out).toContain('selecoes_removidas 1: CAFE-500');
    expect(out).toContain('selecoes_adicionadas 0');
    const counters = [
      ...out.matchAll(/^ {4}(cadastrados|elegiveis|selecionados|vagas|cobertura|exige_selecao)\s+(\S+)\s+(\S+)$/gm),
    ].map((m) => m.slice(1));
    expect(counters).toEqual([
      ['cadastrados', '3', '1'],
      ['elegiveis', '3', '1'],
      ['selecionados', '2', '1'],
      ['vagas', '3', '4'],
      ['cobertura', 'parcial', 'integral'],
      ['exige_selecao', 'false', 'false'],
    ]);
    expect(run.stderr).toBe('');
  });

  it('a concurrent product edit makes the old preview ETag fail with 412 and nothing is deleted; the fresh one deletes (200 excluido)', async () => {
    const run = demo('catalog-deletion');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const out = run.stdout;
    const stale = out.match(/impacto-exclusao\n\s+← 200\n\s+etag: ("x[0-9a-f]{16}")\n/)?.[1];
    expect(stale).toBeDefined();
    expect(out).toMatch(/\n {2}erp → PATCH \/v1\/produtos\/[0-9a-f-]{36}\n(?: {2}erp {5}.*\n)+ {2}erp ← 200\n/);
    const deletes = [
      ...out.matchAll(
        /→ DELETE \/v1\/catalogos\/[0-9a-f-]{36}\n\s+idempotency-key: \S+\n\s+if-match: ("x[0-9a-f]{16}")\n\s+← (\d+)\n(?:\s+etag: \S+\n)?\s+(\{.*\})\n/g,
      ),
    ];
    expect(deletes.map((m) => [m[1] === stale, m[2]])).toEqual([
      [true, '412'],
      [false, '200'],
    ]);
    expect(JSON.parse(deletes[0]![3]!).erro).toMatchObject({
      codigo: 'precondicao_falhou',
      caminho: 'header.if-match',
    });
    expect(out).toContain('GET /v1/catalogos/{A}: estado ativo, produtos 3, versao 4: nothing was deleted.');
    expect(out).toMatch(/ETag "x[0-9a-f]{16}" → "x[0-9a-f]{16}"; same figures: true\./);
    expect(JSON.parse(deletes[1]![3]!)).toMatchObject({
      estado: 'excluido',
      produtos: 0,
      versao: 5,
      excluido_em: '2026-01-01T00:10:00.000Z',
    });
    expect(out).toContain('200 excluido: excluido_em 2026-01-01T00:10:00.000Z, versao 5, produtos 0.');
  });

  it('after the deletion: the vigilancia equals the preview depois, exclusive products inactive, the shared one in B, the head office free', async () => {
    const run = demo('catalog-deletion');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const out = run.stdout;
    expect(out).toContain(
      'GET /v1/empresa/vigilancia: cadastrados 1, elegiveis 1, selecionados 1, vagas 4, cobertura integral, exige_selecao false\n',
    );
    expect(out).toContain("equals the preview's depois: true.");
    const products = [...out.matchAll(/^ {2}(CAFE-500|ARROZ-5K|OLEO-900)\s+(\S+)\s+(\S+)\s+(\d+)\s+(\S+)$/gm)].map(
      (m) => m.slice(1),
    );
    expect(products).toEqual([
      ['CAFE-500', 'false', '-', '2', 'no'],
      ['ARROZ-5K', 'false', '-', '3', 'no'],
      ['OLEO-900', 'true', 'B', '3', 'yes'],
    ]);
    expect(out).toContain('The head office: catalogo_id null, versao 3: free to take a new catalog.');
    expect(out).toContain('Catalog A stays readable: estado excluido; its product list answers 409 catalogo_excluido.');
    expect(out.split('\n').length).toBeLessThanOrEqual(120);
  });

  it('prints the same output every run (seeded ids, virtual clock)', async () => {
    const first = demo('catalog-deletion');
    const second = cli(['demo', 'catalog-deletion']);
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(await second.exited).toEqual({ code: 0, signal: null });
    expect(first.stdout).toContain('excluido');
    expect(second.stdout).toBe(first.stdout);
  });
});

describe('catalog-emulator demo ingestion', { timeout: TEST_TIMEOUT_MS }, () => {
  it('exits 0 and shows the repeated start (201 then 200 repetida), the invalid record located, the repeated batch a no-op', async () => {
    const run = demo('ingestion');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const out = run.stdout;
    const starts = [
      ...out.matchAll(
        /→ POST \/v1\/catalogos\/ingestoes\n\s+idempotency-key: (\S+)\n.*\n\s+← (\d+)\n(?:\s+\S+: .*\n)*?\s+(\{"ingestao_id".*\})\n/g,
      ),
    ];
    expect(starts.map((m) => [m[1], m[2]])).toEqual([
      ['erp-export-2026-11-22T08:00:00Z/acme', '201'],
      ['erp-export-2026-11-22T08:00:00Z/acme', '200'],
    ]);
    const [first, second] = starts.map((m) => JSON.parse(m[3]!));
    expect(first).toMatchObject({ estado: 'aberta', repetida: false });
    expect(second).toEqual({ ...first, repetida: true });
    expect(out).toContain('201: itens 2, erros 1: body.itens[1].ncm valor_invalido.');
    expect(out).toMatch(/"repetido":true,"erros":\[\]\}\n {2}200, repetido true: nothing changed\./);
    expect(out).toContain('estado rejeitada, codigo_falha registros_invalidos; the error, located exactly:');
    expect(out).toContain(
      '    lote 2, indice 1, body.itens[1].ncm: valor_invalido (body.itens[1].ncm must be an NCM of 8 digits, e.g. "84713012")',
    );
    expect(run.stderr).toBe('');
  });

  it('shows the validated preview counts, the 202 application and the verified catalogo.aplicado with the new versao', async () => {
    const run = demo('ingestion');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const out = run.stdout;
    expect(out).toMatch(/^ {4}previa\s+4\s+2\s+1\s+1\s+0\s+0\s+1\s+0$/m);
    expect(out).toMatch(
      /→ POST \/v1\/catalogos\/ingestoes\/[0-9a-f-]{36}\/aplicacao\n\s+idempotency-key: \S+\n\s+if-match: "[0-9a-f]{16}"\n\s+← 202\n/,
    );
    const catalogId = out.match(/catalog ([0-9a-f-]{36}): versao 4, produtos 3\./)?.[1];
    expect(catalogId).toBeDefined();
    expect(out).toContain(
      `receiver: signature ok, catalogo.aplicado {"tipo":"catalogo.aplicado","catalogoId":"${catalogId}","versao":5}`,
    );
    expect(out).toContain('estado aplicada: aplicacao {"versao_catalogo":5,"aplicada_em":"2026-01-01T00:00:05.004Z"}.');
    expect(out).toContain('versao 4 → 5 (once, for the whole application); produtos 3 → 4.');
    const products = [
      ...out.matchAll(/^ {2}(CAFE-500|ARROZ-5K|FEIJAO-1K|OLEO-900|ACUCAR-1K)\s+(\d+)\s+(\S+)\s+(\S+)\s/gm),
    ].map((m) => m.slice(1));
    expect(products).toEqual([
      ['CAFE-500', '2', 'true', 'yes'],
      ['ARROZ-5K', '1', 'true', 'yes'],
      ['FEIJAO-1K', '2', 'true', 'no'],
      ['OLEO-900', '1', 'true', 'yes'],
      ['ACUCAR-1K', '1', 'true', 'yes'],
    ]);
  });

  it('prints the same output every run (seeded ids, virtual clock)', async () => {
    const first = demo('ingestion');
    const second = cli(['demo', 'ingestion']);
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(await second.exited).toEqual({ code: 0, signal: null });
    expect(first.stdout).toContain('aplicada');
    expect(second.stdout).toBe(first.stdout);
  });
});
