import { Transform, pipeline, type Readable, type TransformCallback } from 'node:stream';
import * as zlib from 'node:zlib';

/** What we tell servers we can decode. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/** The content codings of a response, outermost last, or undefined when there are none or one we cannot decode. */
export function contentCodings(header: string | undefined): string[] | undefined {
  const codings = (header ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  return codings.every((coding) => ['gzip', 'x-gzip', 'deflate', 'br'].includes(coding))
    ? codings
    : undefined;
}

/**
 * "deflate" is meant to be zlib-wrapped, but some servers send the raw stream: the first byte
 * decides (a zlib header is a deflate method byte whose 16-bit header is a multiple of 31).
 */
class InflateEither extends Transform {
  private inner?: zlib.Inflate | zlib.InflateRaw;
  private pending?: TransformCallback;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (!this.inner) {
      const zlibWrapped =
        chunk.length >= 2 && (chunk[0]! & 0x0f) === 8 && ((chunk[0]! << 8) | chunk[1]!) % 31 === 0;
      this.inner = zlibWrapped ? zlib.createInflate() : zlib.createInflateRaw();
      this.inner.on('data', (data: Buffer) => {
        if (!this.push(data)) {
          this.inner!.pause();
        }
      });
      this.inner.on('error', (error) => this.destroy(error));
      this.inner.on('end', () => this.pending?.());
    }
    if (this.inner.write(chunk)) {
      callback();
    } else {
      this.inner.once('drain', () => callback());
    }
  }

  override _read(size: number): void {
    this.inner?.resume();
    super._read(size);
  }

  override _flush(callback: TransformCallback): void {
    if (!this.inner) {
      callback();
      return;
    }
    this.pending = callback;
    this.inner.end();
  }

  override _destroy(error: Error | null, callback: (error: Error | null) => void): void {
    this.inner?.destroy();
    callback(error);
  }
}

/**
 * A coded body that ends before its coding does (zlib's "unexpected end of file") was cut short
 * by the server, as a body shorter than its length is: it is told in the same words, undici's
 * `UND_ERR_SOCKET` ("the connection broke off"), not as a failure of this machine. The error is
 * renamed in place, before any other listener (and the stream's `errored`) sees it. Being a
 * listener of every stage, this also keeps a stage that fails before its reader listens (a body
 * cut in the same burst as its headers) from being an uncaught exception: the reader finds the
 * error in the stream's state (`errored`), as `for await` and the safe writer look for it.
 */
function toldAsCut(error: NodeJS.ErrnoException): void {
  if (error.code === 'Z_BUF_ERROR') {
    error.code = 'UND_ERR_SOCKET';
    error.message = `the coded body ended early (${error.message})`;
  }
}

function decoder(coding: string): Transform {
  switch (coding) {
    case 'br':
      return zlib.createBrotliDecompress();
    case 'deflate':
      return new InflateEither();
    default:
      return zlib.createGunzip();
  }
}

/**
 * The body decoded, as a stream: each coding undone in turn (the last applied first). Size caps
 * then apply to the decoded bytes, as the caller counts what it reads. Destroying the result
 * destroys the response body too.
 */
export function decodeBody(body: Readable, codings: readonly string[]): Readable {
  if (codings.length === 0) {
    return body;
  }
  const stages = [...codings].reverse().map(decoder);
  for (const stage of stages) {
    stage.prependListener('error', toldAsCut);
  }
  const last = stages[stages.length - 1]!;
  // pipeline() destroys every stage when one fails or the reader destroys the last.
  (
    pipeline as (
      ...streams: Array<
        NodeJS.ReadableStream | NodeJS.WritableStream | ((error: Error | null) => void)
      >
    ) => void
  )(body, ...stages, () => undefined);
  return last;
}
