/**
 * A TypeScript source with its comments blanked, for the tests that read sources (src/core/purity.test.ts,
 * src/layers.test.ts). Test support, never shipped (see support.ts). Line breaks are kept, so line numbers hold;
 * string, template and regex literals are skipped whole, so `//` or a quote inside one is not read as code.
 */

/**
 * `source` with comments blanked; each string, template or regex literal (`raw`, delimiters included) becomes
 * `literal(raw)`, by default itself.
 */
export function stripComments(source: string, literal: (raw: string) => string = (raw) => raw): string {
  let out = '';
  let i = 0;
  let lastSignificant = '';
  const regexCanStart = () =>
    lastSignificant === '' ||
    /[(,=:[!&|?{};+\-*%<>~^]$/.test(lastSignificant) ||
    /\b(?:return|typeof|case|of|in|void|yield|await|delete|throw|new)$/.test(lastSignificant);
  while (i < source.length) {
    const ch = source[i]!;
    const next = source[i + 1];
    if (ch === '/' && next === '/') {
      while (i < source.length && source[i] !== '\n') i++;
      continue;
    }
    if (ch === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end < 0 ? source.length : end + 2;
      out += source.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
      continue;
    }
    if (ch === '"' || ch === "'" || ch === '`') {
      let j = i + 1;
      while (j < source.length && source[j] !== ch) j += source[j] === '\\' ? 2 : 1;
      out += literal(source.slice(i, j + 1));
      i = j + 1;
      lastSignificant = 'x';
      continue;
    }
    if (ch === '/' && regexCanStart()) {
      let j = i + 1;
      let inClass = false;
      while (j < source.length && source[j] !== '\n' && (inClass || source[j] !== '/')) {
        if (source[j] === '\\') j++;
        else if (source[j] === '[') inClass = true;
        else if (source[j] === ']') inClass = false;
        j++;
      }
      out += literal(source.slice(i, j + 1));
      i = j + 1;
      lastSignificant = 'x';
      continue;
    }
    out += ch;
    if (!/\s/.test(ch)) lastSignificant = (lastSignificant + ch).slice(-8);
    i++;
  }
  return out;
}
