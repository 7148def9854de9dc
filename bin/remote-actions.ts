/**
 * The commands for a running server and their actions ('' for the command alone), each action with samples of its
 * use: one for each control it may call first. A command takes no other action (actionOf refuses any other word),
 * and dispatches on its action's name, every name of the table and no other (an exhaustive switch the compiler
 * checks); the tests run every sample against servers that lie (bin/remote-hostile.test.ts).
 */

type Samples = readonly (readonly string[])[];

export const REMOTE_ACTIONS = {
  clock: {
    '': [['clock'], ['clock', '--company', 'c1']],
    advance: [
      ['clock', 'advance', '1d'],
      ['clock', 'advance', '--to', '2026-02-01T00:00:00Z', '--company', 'c1'],
    ],
    'run-until-idle': [
      ['clock', 'run-until-idle'],
      ['clock', 'run-until-idle', '--limit', '5', '--company', 'c1'],
    ],
  },
  fault: {
    add: [['fault', 'add', '--status', '503']],
    list: [
      ['fault', 'list'],
      ['fault', 'list', '--company', 'c1'],
    ],
    'near-misses': [['fault', 'near-misses', 'flt_1']],
    remove: [
      ['fault', 'remove', 'flt_1'],
      ['fault', 'remove', '--all'],
    ],
  },
  events: { trigger: [['events', 'trigger', '--company', 'c1', '--type', 'webhook.teste']] },
  logs: { tail: [['logs', 'tail']] },
  report: { '': [['report']] },
} as const satisfies Readonly<Record<string, Readonly<Record<string, Samples>>>>;

export type RemoteCommand = keyof typeof REMOTE_ACTIONS;
type ActionOf<C extends RemoteCommand> = keyof (typeof REMOTE_ACTIONS)[C] & string;

/** The commands for a running server, as the bin dispatches them. */
export const REMOTE_COMMANDS = Object.keys(REMOTE_ACTIONS) as RemoteCommand[];

/** `word` (undefined: none) as an action of `command`; undefined when it is none of its actions. */
export function actionOf<C extends RemoteCommand>(command: C, word: string | undefined): ActionOf<C> | undefined {
  return Object.hasOwn(REMOTE_ACTIONS[command], word ?? '') ? ((word ?? '') as ActionOf<C>) : undefined;
}

/** The actions of `command` that are words (all but the command alone). */
export const namedActions = (command: RemoteCommand): string[] =>
  Object.keys(REMOTE_ACTIONS[command]).filter((name) => name !== '');
