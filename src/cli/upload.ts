// `firmscope upload FILE --product P --name N [--version V] [--symbols FILE]… [--wait] [--timeout 30m]` with
// the CI gates. The three-step pre-signed upload: a signed URL from the API, the bytes PUT to it (a progress bar
// with bytes, speed and time left on a terminal), then the image is created from the uploaded file. Debug
// symbol files are attached before the scan starts, so the first scan uses them.
import { createReadStream, openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Transform } from 'node:stream';
import type { Command } from 'commander';
import type { FirmscopeClient } from '../client/index.js';
import { data, findProduct, type ImageRef } from './remote/api.js';
import { checkGateOptions, EXIT_CODES_HELP, gatesAsked, type GateOptions } from './remote/gate.js';
import { gateOptions, runGates } from './remote/findings.js';
import { parseDuration, waitForScan } from './remote/scan-wait.js';
import { CliError, connect, connectionOptions, reach, type ConnectionFlags } from './remote/session.js';

interface UploadOptions extends ConnectionFlags, GateOptions {
  product: string;
  name: string;
  version?: string;
  symbols: string[];
  wait?: boolean;
  timeout: string;
  failOnIncomplete?: boolean;
}

async function fileSize(path: string, what: string): Promise<number> {
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new CliError(`${what} ${path} is not a file`);
    return info.size;
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`${what} not found: ${path}`);
  }
}

/** PUTs the file to the signed URL, reporting progress (cli-progress bar on a terminal). */
async function putFile(uploadUrl: string, file: string, size: number): Promise<void> {
  const tty = process.stderr.isTTY && (process.stderr.columns ?? 0) > 0;
  const { default: progress } = tty ? await import('cli-progress') : { default: undefined };
  const bar = progress ? new progress.SingleBar({
    format: 'uploading {bar} {percentage}% | {value_h}/{total_h} | {speed}/s | {eta_formatted} left',
    formatValue: (v, o, type) => (type === 'value' || type === 'total' ? humanBytes(v) : progress.Format.ValueFormat(v, o, type)),
    stream: process.stderr, hideCursor: true, etaBuffer: 20,
  }, progress.Presets.shades_classic) : undefined;
  const started = Date.now();
  let sent = 0;
  bar?.start(size, 0, { value_h: humanBytes(0), total_h: humanBytes(size), speed: humanBytes(0) });
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      sent += chunk.length;
      const speed = sent / Math.max(0.001, (Date.now() - started) / 1000);
      bar?.update(sent, { value_h: humanBytes(sent), total_h: humanBytes(size), speed: humanBytes(speed) });
      done(null, chunk);
    },
  });
  const body = createReadStream(file).pipe(counter);
  try {
    const response = await reach(uploadUrl, {
      method: 'PUT', body: body as unknown as RequestInit['body'], headers: { 'content-type': 'application/octet-stream', 'content-length': String(size) },
      duplex: 'half',
    } as RequestInit);
    if (!response.ok) {
      const text = await response.text();
      let message = text;
      try { message = (JSON.parse(text) as { message?: string }).message ?? text; } catch { /* the text itself */ }
      throw new CliError(response.status === 413 ? `${file} is too large for this server: ${message}` : `the upload failed (${response.status}): ${message}`);
    }
  } finally {
    bar?.stop();
  }
  if (!tty) process.stderr.write(`firmscope: uploaded ${humanBytes(size)} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

function humanBytes(n: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let i = 0;
  while (n >= 1000 && i < units.length - 1) { n /= 1000; i++; }
  return `${n.toFixed(i === 0 ? 0 : 1)} ${units[i]}`;
}

async function attachSymbols(client: FirmscopeClient, image: ImageRef, files: string[]): Promise<void> {
  for (const [i, file] of files.entries()) {
    const form = new FormData();
    form.set('file', await openAsBlob(file), basename(file));
    const last = i === files.length - 1;
    data(await client.POST('/api/v4/products/{productId}/images/{imageId}/files', {
      params: { path: { productId: image.productId, imageId: image.id }, query: { rescan: last } },
      body: form as never, bodySerializer: (b: unknown) => b as FormData,
    }));
    process.stderr.write(`firmscope: attached ${basename(file)}\n`);
  }
}

export function register(program: Command): void {
  const command = connectionOptions(program.command('upload')
    .description('Upload a firmware image to a product and start its scan; with --wait, follow the scan and apply the gates')
    .argument('<file>', 'the firmware image')
    .requiredOption('--product <product>', 'product id or name')
    .requiredOption('--name <name>', 'image name')
    .option('--version <version>', 'image version')
    .option('--symbols <file>', 'a debug symbol file (PDB, ELF debug file) for the scan (repeatable)', (f: string, all: string[]) => [...all, f], [] as string[])
    .option('--wait', 'wait for the scan to end (needed by the gates)')
    .option('--timeout <duration>', 'how long --wait waits (e.g. 30m, 90s)', '30m'));
  gateOptions(command).addHelpText('after', EXIT_CODES_HELP).action(async (file: string, options: UploadOptions) => {
    checkGateOptions(options);
    const timeoutMs = parseDuration(options.timeout);
    if ((gatesAsked(options) || options.failOnIncomplete) && !options.wait) throw new CliError('the --fail-on options need --wait');
    const size = await fileSize(file, 'file');
    for (const symbols of options.symbols) await fileSize(symbols, 'symbol file');
    const { client } = await connect(options);
    const product = await findProduct(client, options.product);
    const signed = data(await client.GET('/api/v4/products/{productId}/tempFiles:generateUploadUrl', { params: { path: { productId: product.id } } }));
    await putFile(signed.uploadUrl, file, size);
    const created = data(await client.POST('/api/v4/products/{productId}/images:upload', {
      params: {
        path: { productId: product.id },
        query: { tempFileId: signed.id, imageName: options.name, filename: basename(file), createScan: options.symbols.length === 0, ...(options.version ? { version: options.version } : {}) },
      },
    })) as { id: string; name: string; createTime: string };
    const image: ImageRef = { id: created.id, name: created.name, productId: product.id, createTime: created.createTime, version: options.version };
    if (options.symbols.length) await attachSymbols(client, image, options.symbols);
    process.stdout.write(`${image.id}\n`);
    process.stderr.write(`firmscope: image ${image.name} (${image.id}) created in ${product.name}\n`);
    if (!options.wait) return;
    const { complete } = await waitForScan(client, image, timeoutMs);
    process.exitCode = await runGates(client, image, options, complete);
  });
}
