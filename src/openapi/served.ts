/**
 * The documents as the package ships them and the server serves them: JSON text, two-space indented, one final
 * line break. Each is generated on its first use and kept for the process (generating walks every schema).
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
