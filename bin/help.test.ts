import { describe, expect, it } from 'vitest';
import { commandUsage } from './help.js';
import { quietKinds } from './log-format.js';

const USAGE = `tool 1.0

Usage:
  catalog-emulator [serve] [options]   serve it
  catalog-emulator demo [NAME]         a demo
  catalog-emulator openapi [--controls]
                                       the document
                                       (or the controls')
  catalog-emulator conformance --base-url URL
                                       test a deployment
  catalog-emulator clock [advance D]   the clock
  catalog-emulator logs tail           the log
  catalog-emulator help [COMMAND]      this text

Options of serve:
  --port N            the port

Exit codes: 0, 1.

Options of conformance:
  --token T           the token

Options of clock:
  advance D           move it

Options of clock and logs (for a server):
  --url URL           the server
Exit codes of these: 0.
`;

describe('commandUsage', () => {
  it("cuts one command's lines, with those indented under it; serve also gets its options", () => {
    expect(commandUsage(USAGE, 'openapi')).toBe(
      "Usage:\n  catalog-emulator openapi [--controls]\n                                       the document\n                                       (or the controls')\n",
    );
    expect(commandUsage(USAGE, 'demo')).toBe('Usage:\n  catalog-emulator demo [NAME]         a demo\n');
    expect(commandUsage(USAGE, 'serve')).toBe(
      'Usage:\n  catalog-emulator [serve] [options]   serve it\n\nOptions of serve:\n  --port N            the port\n\nExit codes: 0, 1.\n',
    );
  });

  it('gives a command its own options section, up to the next one', () => {
    expect(commandUsage(USAGE, 'conformance')).toBe(
      'Usage:\n  catalog-emulator conformance --base-url URL\n                                       test a deployment\n\nOptions of conformance:\n  --token T           the token\n',
    );
  });

  it('gives a command every section whose heading names it, a shared one included', () => {
    expect(commandUsage(USAGE, 'clock')).toBe(
      'Usage:\n  catalog-emulator clock [advance D]   the clock\n\nOptions of clock:\n  advance D           move it\n\nOptions of clock and logs (for a server):\n  --url URL           the server\nExit codes of these: 0.\n',
    );
    expect(commandUsage(USAGE, 'logs')).toBe(
      'Usage:\n  catalog-emulator logs tail           the log\n\nOptions of clock and logs (for a server):\n  --url URL           the server\nExit codes of these: 0.\n',
    );
  });

  it('knows no other command', () => {
    expect(commandUsage(USAGE, 'nope')).toBeUndefined();
    expect(commandUsage(USAGE, 'Usage:')).toBeUndefined();
  });
});

describe('quietKinds', () => {
  it('takes the kinds comma-separated or repeated, and names a wrong one', () => {
    expect(quietKinds(['requests,jobs', ' controls '])).toEqual(new Set(['request', 'job', 'control']));
    expect(quietKinds([])).toEqual(new Set());
    expect(quietKinds(['requests,'])).toBe('--quiet takes requests, controls, deliveries, jobs, findings (got "")');
    expect(quietKinds(['request'])).toBe(
      '--quiet takes requests, controls, deliveries, jobs, findings (got "request")',
    );
  });
});
