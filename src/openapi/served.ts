/**
 * The documents as the package ships them and the server serves them: JSON text, two-space indented, one final
 * line break. Each is generated on its first use and kept for the process (generating walks every schema). The
 * shipped files name the default address as their server (http://127.0.0.1:4747); a server serves them naming
 * itself, at the origin it was asked at, so that a client generated from what it served, and the docs page's
 * Servers list, point to it.
 */
import { controlsDocument } from './controls.js';
import { apiDocument } from './document.js';

export type OpenApiDocumentName = 'api' | 'controls';

const texts = new Map<OpenApiDocumentName, string>();

/** The document `which` as JSON text: openapi.json ('api') or openapi.controls.json ('controls'). */
export function openApiText(which: OpenApiDocumentName): string {
  let text = texts.get(which);
  if (text === undefined) {
    text = `${JSON.stringify(which === 'api' ? apiDocument() : controlsDocument(), null, 2)}\n`;
    texts.set(which, text);
  }
  return text;
}

/** The documents as served, by document and origin: a server is asked at one or two origins, each kept. */
const served = new Map<string, string>();
/** More origins than any server is reached by (Host is checked): past it, the oldest is dropped. */
const SERVED_ORIGINS = 16;

/** The document `which` as a server at `origin` (such as http://127.0.0.1:51234) serves it: its server is `origin`. */
export function servedOpenApiText(which: OpenApiDocumentName, origin: string): string {
  const key = `${which} ${origin}`;
  let text = served.get(key);
  if (text === undefined) {
    const document = JSON.parse(openApiText(which)) as Record<string, unknown>;
    // Replaced in place: the key keeps its position, so the text differs from the file only there.
    document.servers = [{ url: origin, description: 'The catalog-emulator that served this document' }];
    text = `${JSON.stringify(document, null, 2)}\n`;
    if (served.size >= SERVED_ORIGINS * 2) served.delete(served.keys().next().value!);
    served.set(key, text);
  }
  return text;
}
