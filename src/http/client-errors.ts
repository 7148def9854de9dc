/**
 * What a server answers when Node's HTTP parser refuses the bytes themselves (a bad chunk size, a body cut
 * short, a transfer coding other than chunked, headers too large, a Content-Length that is no number): Node's
 * default is a bare `400 Bad Request` with no body. The emulator answers with its error body instead, so the
 * client can tell which rule it broke, and closes the connection, whose framing can no longer be trusted.
 */
import type { Duplex } from 'node:stream';
import { CONTROL_REQUEST_ID } from './errors.js';

interface ParserError extends Error {
  readonly code?: string;
}

/** The status and error code of a parser refusal, by Node's error code. */
function clientErrorAnswer(error: ParserError): { status: number; codigo: string; mensagem: string } {
  const code = error.code ?? 'unknown';
  const detail = `${code}: ${error.message}`;
  if (code === 'HPE_HEADER_OVERFLOW')
    return {
      status: 431,
      codigo: 'cabecalhos_grandes_demais',
      mensagem: `The request's headers are larger than the server accepts (${detail}).`,
    };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return {
      status: 408,
      codigo: 'tempo_esgotado',
      mensagem: `The request was not received whole in time (${detail}).`,
    };
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW')
    return {
      status: 413,
      codigo: 'corpo_muito_grande',
      mensagem: `The chunk extensions are larger than the server accepts (${detail}).`,
    };
  if (/CHUNK|EOF|TRANSFER_ENCODING|BODY/.test(code)) {
    return {
      status: 400,
      codigo: 'corpo_ilegivel',
      mensagem: `The request body could not be read to its end (${detail}): send it whole, with a Content-Length that matches it or valid chunked encoding.`,
    };
  }
  return { status: 400, codigo: 'requisicao_malformada', mensagem: `The request is not valid HTTP/1.1 (${detail}).` };
}

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Content Too Large',
  431: 'Request Header Fields Too Large',
};

/**
 * The server's `clientError` listener. Like Node's default it writes only when the socket can take it and no
 * answer has begun on it; a connection the peer reset is just closed.
 */
export function answerClientError(error: ParserError, socket: Duplex): void {
  const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || answering?.headersSent) {
    socket.destroy();
    return;
  }
  const { status, codigo, mensagem } = clientErrorAnswer(error);
  const body = JSON.stringify({ erro: { codigo, mensagem, request_id: CONTROL_REQUEST_ID } });
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
