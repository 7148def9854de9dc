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
  catalog-emulator help [COMMAND]      this text

Options of serve:
  --port N            the port

Exit codes: 0, 1.

Options of conformance:
  --token T           the token
`;

describe('commandUsage', () => {
  it("cuts one command's lines, with those indented under it; serve also gets its options", () => {
    expect(commandUsage(USAGE, 'openapi')).toBe("Usage:\n  catalog-emulator openapi [--controls]\n                                       the document\n                                       (or the controls')\n");
    expect(commandUsage(USAGE, 'demo')).toBe('Usage:\n  catalog-emulator demo [NAME]         a demo\n');
    expect(commandUsage(USAGE, 'serve')).toBe('Usage:\n  catalog-emulator [serve] [options]   serve it\n\nOptions of serve:\n  --port N            the port\n\nExit codes: 0, 1.\n');
  });

  it('gives a command its own options section, up to the next one', () => {
    expect(commandUsage(USAGE, 'conformance')).toBe('Usage:\n  catalog-emulator conformance --base-url URL\n                                       test a deployment\n\nOptions of conformance:\n  --token T           the token\n');
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
    expect(quietKinds(['request'])).toBe('--quiet takes requests, controls, deliveries, jobs, findings (got "request")');
  });
});
