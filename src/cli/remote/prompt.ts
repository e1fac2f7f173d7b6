// A password from the terminal without echo, or the first line of standard input when it is not a terminal.
import { createInterface } from 'node:readline';

export async function readPassword(question: string): Promise<string> {
  const input = process.stdin;
  if (!input.isTTY) {
    const lines = createInterface({ input });
    for await (const line of lines) {
      lines.close();
      return line;
    }
    throw new Error('no password on standard input');
  }
  process.stderr.write(question);
  input.setRawMode(true);
  input.resume();
  input.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let password = '';
    const done = (error?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(password);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return done();
        if (ch === '\u0003') return done(new Error('cancelled'));
        if (ch === '\u007f' || ch === '\b') password = password.slice(0, -1);
        else password += ch;
      }
    };
    input.on('data', onData);
  });
}
