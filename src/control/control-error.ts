/**
 * The error a refused control call throws, in process (emulator.advance(), emulator.faults.add(), …) and, through
 * the /_emulator routes, as the answer's status and error body. Its own module so that the engine, which throws
 * it, and the control routes, which answer it, both import it without importing each other.
 */

/** A refused control call becomes an Error whose message says what to fix. */
export class ControlError extends Error {
  constructor(
    readonly status: number,
    readonly codigo: string,
    message: string,
    readonly caminho?: string,
  ) {
    super(message);
    this.name = 'ControlError';
  }
}
