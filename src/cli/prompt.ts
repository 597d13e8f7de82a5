import { createInterface } from 'node:readline/promises';
import type { CliIO } from './command.js';
import { CliError } from './command.js';

/** Whether the command can ask questions (stdin is a terminal). */
export function canPrompt(io: CliIO): boolean {
  return io.stdin.isTTY === true;
}

/** Reads all of stdin (for `--password-stdin`), minus one trailing newline. */
export async function readStdin(io: CliIO): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** Questions asked one after another on one stdin (answers typed ahead are kept, not lost between questions). */
export interface Questioner {
  /** Prints `question` and reads one line (trimmed); `null` when stdin has ended. */
  ask(question: string): Promise<string | null>;
  close(): void;
}

/** A `Questioner` over the command's stdin; the terminal echoes what is typed, a pipe is not echoed back. */
export function openQuestioner(io: CliIO): Questioner {
  const rl = createInterface({ input: io.stdin, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  return {
    async ask(question) {
      io.stdout.write(question);
      const next = await lines.next();
      if (next.done) {
        io.stdout.write('\n');
        return null;
      }
      return String(next.value).trim();
    },
    close: () => rl.close(),
  };
}

/** Asks one question with echo (usernames, emails). */
export async function promptLine(io: CliIO, question: string): Promise<string> {
  const rl = createInterface({ input: io.stdin, output: io.stdout, terminal: true });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

/**
 * Asks for a secret without echoing it: the terminal is put in raw mode and
 * each key is handled here (Enter ends, Backspace deletes, Ctrl-C aborts).
 */
export function promptHidden(io: CliIO, question: string): Promise<string> {
  const { stdin, stdout } = io;
  if (!stdin.setRawMode) throw new CliError('Cannot read a password without a terminal: use --password-stdin.');
  stdout.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (err: Error | null) => {
      stdin.removeListener('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      stdout.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish(null);
        if (ch === '\u0003') return finish(new CliError('Aborted.'));
        if (ch === '\u007f' || ch === '\b') value = [...value].slice(0, -1).join('');
        else if (ch >= ' ') value += ch;
      }
    };
    stdin.on('data', onData);
  });
}
