import { createHash } from 'node:crypto';

/**
 * Whether a stream holds exactly `bytes` bytes whose SHA-256 is `sha256`: the one check every read of
 * a cached copy makes (the folder's and the team server's). Reads no more than one chunk past the
 * recorded size (a copy far bigger than recorded costs no more than one of the right size, and the
 * stream is closed there); a failure of the stream itself is thrown for the caller to say.
 */
export async function holdsExactly(
  chunks: AsyncIterable<Buffer>,
  bytes: number,
  sha256: string,
): Promise<boolean> {
  const hash = createHash('sha256');
  let read = 0;
  for await (const chunk of chunks) {
    read += chunk.length;
    if (read > bytes) {
      return false;
    }
    hash.update(chunk);
  }
  return read === bytes && hash.digest('hex') === sha256;
}
