/**
 * Opens a URL in the user's browser the way the desktop does (xdg-open, open, or start), detached so that the
 * browser outlives nothing of ours and we wait for nothing of it.
 */
import { spawn } from 'node:child_process';

/** The desktop's opener of URLs on this platform. */
function opener(url: string): { readonly command: string; readonly args: readonly string[] } {
  if (process.platform === 'darwin') return { command: 'open', args: [url] };
  // `start` is a command of cmd; its first quoted argument is a window title, hence the empty one.
  if (process.platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', url] };
  return { command: 'xdg-open', args: [url] };
}

/**
 * Asks the desktop to open `url`. A failure — no opener installed, or one that gives up (no browser, no display) —
 * is only reported, once, through `report`: the URL is printed anyway, so the user can open it.
 */
export function openInBrowser(url: string, report: (problem: string) => void): void {
  const { command, args } = opener(url);
  let reported = false;
  const once = (problem: string) => {
    if (!reported) report(problem);
    reported = true;
  };
  const child = spawn(command, args, { detached: true, stdio: 'ignore' });
  child.on('error', (error: NodeJS.ErrnoException) =>
    once(`${command}: ${error.code === 'ENOENT' ? 'not found' : error.message}`),
  );
  child.on('exit', (code) => {
    if (code !== null && code !== 0) once(`${command} exited with code ${code}`);
  });
  child.unref();
}
