/**
 * Byte strings as one `bytea` parameter plus 1-based offsets and lengths: sent in binary (an array
 * of bytea would travel as hex text), split again by `substring` on the server.
 */
export function packBytes(parts: Uint8Array[]): { blob: Buffer; offsets: number[]; lengths: number[] } {
  const offsets: number[] = [];
  const lengths: number[] = [];
  let at = 1;
  for (const part of parts) {
    offsets.push(at);
    lengths.push(part.byteLength);
    at += part.byteLength;
  }
  return { blob: Buffer.concat(parts), offsets, lengths };
}
