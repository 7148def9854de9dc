/**
 * Server-sent events read from a fetch() body (EventSource cannot send the Authorization header): text in, whole
 * frames out, however the chunks cut the lines. Only `event:` and `data:` matter here (no ids, no retry field).
 */
export interface SseFrame {
  readonly event: string;
  readonly data: string;
}

export class SseParser {
  #buffer = '';
  #event = '';
  #data: string[] = [];

  /** The frames completed by `chunk`. */
  push(chunk: string): SseFrame[] {
    this.#buffer += chunk;
    const frames: SseFrame[] = [];
    let start = 0;
    for (;;) {
      const end = this.#buffer.indexOf('\n', start);
      if (end === -1) break;
      let line = this.#buffer.slice(start, end);
      start = end + 1;
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line === '') {
        if (this.#data.length > 0) frames.push({ event: this.#event || 'message', data: this.#data.join('\n') });
        this.#event = '';
        this.#data = [];
        continue;
      }
      if (line.startsWith(':')) continue; // a comment: the server's keep-alive
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') this.#event = value;
      else if (field === 'data') this.#data.push(value);
    }
    this.#buffer = this.#buffer.slice(start);
    return frames;
  }
}
