/**
 * The Host check's reading of Host headers and configured names: host part, any case, the port ignored, IPv6
 * compared in its bracketed canonical form.
 */
import { describe, expect, it } from 'vitest';
import { hostGuard, localAddress } from './host-guard.js';

const admits = (check: (host: string | undefined) => Response | undefined, host: string | undefined) =>
  check(host) === undefined;

describe('hostGuard', () => {
  it('admits the loopback names, any case, with or without a port, and IPv6 loopback in any spelling', () => {
    const check = hostGuard('127.0.0.1');
    for (const host of [
      'localhost',
      'LOCALHOST:4747',
      '127.0.0.1',
      '127.0.0.1:80',
      '[::1]',
      '[::1]:4747',
      '[0:0:0:0:0:0:0:1]:4747',
      '[0000::0001]',
      '',
    ]) {
      expect(admits(check, host), host).toBe(true);
    }
    expect(admits(check, undefined)).toBe(true);
  });

  it('refuses other names and malformed hosts with 403 host_nao_permitido', async () => {
    const check = hostGuard('127.0.0.1');
    for (const host of [
      'evil.example',
      'localhost.evil.example',
      '127.0.0.2',
      '[::2]',
      '[::1',
      '[::1]x',
      'localhost:abc',
      '::1',
      '[nothex]',
    ]) {
      const answer = check(host);
      expect(answer?.status, host).toBe(403);
      expect(((await answer!.json()) as { erro: { codigo: string } }).erro.codigo).toBe('host_nao_permitido');
    }
  });

  it('admits the bound address unless it is a wildcard, and the allowed names in any spelling', () => {
    expect(admits(hostGuard('10.1.2.3'), '10.1.2.3:4747')).toBe(true);
    expect(admits(hostGuard('Emulator.Local'), 'emulator.local')).toBe(true);
    expect(admits(hostGuard('fd00::1'), '[fd00:0::1]:4747')).toBe(true);
    for (const wildcard of ['0.0.0.0', '::', '0:0:0:0:0:0:0:0']) {
      expect(admits(hostGuard(wildcard), '0.0.0.0'), wildcard).toBe(false);
      expect(admits(hostGuard(wildcard), '[::]'), wildcard).toBe(false);
      expect(admits(hostGuard(wildcard), 'localhost'), wildcard).toBe(true);
    }
    const allowed = hostGuard('0.0.0.0', ['Emulator', 'fd00::2', '[FD00::3]', 'my_service']);
    for (const host of ['emulator:4747', '[fd00::2]', '[fd00::3]:1', 'my_service'])
      expect(admits(allowed, host), host).toBe(true);
    expect(admits(hostGuard('127.0.0.1', ['*']), 'anything.example')).toBe(true);
  });

  it('throws a TypeError naming an allowHosts entry that is no host name', () => {
    for (const [entry, i] of [
      ['emulator:4747', 1],
      ['http://emulator', 1],
      ['', 1],
      ['two words', 1],
      ['[::1', 1],
    ] as const) {
      expect(() => hostGuard('127.0.0.1', ['ok', entry])).toThrow(
        `allowHosts[${i}]: ${JSON.stringify(entry)} is not a host name`,
      );
    }
    expect(() => hostGuard('127.0.0.1', [42 as unknown as string])).toThrow('allowHosts[0]: 42 is not a host name');
  });
});

describe('localAddress', () => {
  it('is the loopback address of a wildcard bind, else the bound address', () => {
    expect(localAddress('0.0.0.0')).toBe('127.0.0.1');
    expect(localAddress('::')).toBe('::1');
    expect(localAddress('0:0:0:0:0:0:0:0')).toBe('::1');
    expect(localAddress('127.0.0.1')).toBe('127.0.0.1');
    expect(localAddress('localhost')).toBe('localhost');
    expect(localAddress('fd00::1')).toBe('fd00::1');
  });
});
