/**
 * The compose file of docs/container.md (examples/docker-compose.yml), read for the image test as compose reads it:
 * nested maps, lists of plain values, comments, and `${NAME}` / `${NAME:?message}` taken from the variables given
 * (compose takes them from the shell or an .env file, and refuses to start when a `:?` one is unset). Only that subset
 * of YAML: any other line throws, so a change to the file this does not understand fails the test instead of going
 * unread.
 */

type Value = string | Value[] | { [key: string]: Value };

interface Line {
  readonly number: number;
  readonly indent: number;
  readonly text: string;
}

export function readCompose(text: string, variables: Readonly<Record<string, string>>): Record<string, Value> {
  const lines: Line[] = text.split('\n').flatMap((raw, index) => {
    // A comment starts a line or follows a space.
    const line = raw.replace(/(^|\s)#.*$/, '').trimEnd();
    return line.trim() === '' ? [] : [{ number: index + 1, indent: /^ */.exec(line)![0].length, text: line.trim() }];
  });
  const at = { next: 0 };
  const value = block(lines, at, 0);
  if (at.next < lines.length) throw new Error(`docker-compose.yml:${lines[at.next]!.number}: unexpected indentation`);
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error('docker-compose.yml: the file is not a map');
  return interpolate(value, variables) as Record<string, Value>;
}

/** The map or list whose lines start at `at.next` with exactly `indent` spaces. */
function block(lines: readonly Line[], at: { next: number }, indent: number): Value {
  const first = lines[at.next];
  if (first === undefined || first.indent !== indent)
    throw new Error(`docker-compose.yml:${first?.number ?? 'end'}: expected a block indented by ${indent}`);
  if (first.text.startsWith('- ')) {
    const items: Value[] = [];
    while (lines[at.next]?.indent === indent && lines[at.next]!.text.startsWith('- '))
      items.push(scalar(lines[at.next++]!.text.slice(2)));
    return items;
  }
  const map: Record<string, Value> = {};
  while (lines[at.next]?.indent === indent) {
    const line = lines[at.next++]!;
    const pair = /^([A-Za-z0-9_.-]+):(?: (.*))?$/.exec(line.text);
    if (!pair) throw new Error(`docker-compose.yml:${line.number}: not a "key: value" line: ${line.text}`);
    const [, key, rest] = pair;
    map[key!] = rest === undefined ? block(lines, at, lines[at.next]?.indent ?? -1) : scalar(rest);
  }
  return map;
}

function scalar(text: string): string {
  const quoted = /^"(.*)"$|^'(.*)'$/.exec(text);
  return quoted ? (quoted[1] ?? quoted[2]!) : text;
}

function interpolate(value: Value, variables: Readonly<Record<string, string>>): Value {
  if (typeof value === 'string') {
    return value.replace(
      /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::\?([^}]*))?\}/g,
      (_, name: string, message: string | undefined) => {
        const given = variables[name];
        if (given === undefined || (given === '' && message !== undefined))
          throw new Error(`docker-compose.yml: ${name} is not set${message === undefined ? '' : ` (${message})`}`);
        return given;
      },
    );
  }
  if (Array.isArray(value)) return value.map((item) => interpolate(item, variables));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolate(item, variables)]));
}
