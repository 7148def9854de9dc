/**
 * The spec's numbered statements (docs/spec-statements.md, a verbatim copy of the spec's traceability list):
 * one `- **ID** — text` line each, grouped under `## Section` headings; `_(not black-box)_` marks the ones no
 * HTTP call or delivered webhook can check.
 */

export interface Statement {
  readonly id: string;
  readonly section: string;
  /** The statement's sentence, without the not-black-box mark. */
  readonly text: string;
  readonly blackBox: boolean;
}

const LINE = /^- \*\*([A-Z]+(?:-[A-Z]+)*-\d{2,})\*\* — (.*)$/;
const NOT_BLACK_BOX = ' _(not black-box)_';

/** Reads every statement line, in file order; a repeated id is an error (ids must name one statement). */
export function parseStatements(markdown: string): Statement[] {
  const statements: Statement[] = [];
  const seen = new Set<string>();
  let section = '';
  for (const [index, line] of markdown.split('\n').entries()) {
    const heading = /^## (.+)$/.exec(line);
    if (heading) {
      section = heading[1]!.trim();
      continue;
    }
    const match = LINE.exec(line);
    if (!match) continue;
    const id = match[1]!;
    if (seen.has(id)) throw new Error(`statements line ${index + 1}: ${id} is numbered twice`);
    seen.add(id);
    const raw = match[2]!.trimEnd();
    const blackBox = !raw.endsWith(NOT_BLACK_BOX);
    statements.push({ id, section, text: blackBox ? raw : raw.slice(0, -NOT_BLACK_BOX.length), blackBox });
  }
  return statements;
}
