/** How the page writes virtual times: UTC, to the second, milliseconds only when there are some. */
export function shortTime(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const text = new Date(ms).toISOString();
  const millis = text.slice(20, 23);
  return `${text.slice(0, 10)} ${text.slice(11, 19)}${millis === '000' ? '' : `.${millis}`}`;
}

/** "+5 s", "+1 h 30 min", "+2 d 3 h": how far `iso` is ahead of `now`, for the items ahead. */
export function ahead(iso: string, now: string): string {
  let seconds = Math.max(0, Math.round((Date.parse(iso) - Date.parse(now)) / 1000));
  if (seconds === 0) return 'due now';
  const parts: string[] = [];
  const units: [number, string][] = [
    [86_400, 'd'],
    [3_600, 'h'],
    [60, 'min'],
    [1, 's'],
  ];
  for (const [size, unit] of units) {
    if (seconds >= size && parts.length < 2) {
      parts.push(`${Math.floor(seconds / size)} ${unit}`);
      seconds %= size;
    }
  }
  return `in ${parts.join(' ')}`;
}
