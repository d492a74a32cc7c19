/**
 * The frames of the span log (span-log.ts), little-endian:
 *
 *   0  u32  magic 'ESL1'
 *   4  u32  frame length in bytes, header included
 *   8  u32  CRC-32 of every byte after this field
 *   12 u8   kind: 1 spans of one trace, 2 release of traces
 *   13 u8   codec of the payload (spans; span-codec.ts), else 0
 *   14 u16  trace id length in bytes (spans), else 0
 *   16 u32  span count (spans), trace count (release)
 *   20 f64  sequence number (spans: the order appends were made in, kept when a frame is copied)
 *   28      spans: the trace id, then the payload (the stored bytes, as a store row holds them)
 *           release: per trace, its id as u16 length + bytes, then f64 the highest sequence number
 *           released (frames of that trace up to it are released, wherever they are in the log)
 *
 * A frame is written whole by one write; a frame cut short by a crash, or not matching its CRC, ends
 * what is read of its segment.
 */
import { crc32 } from 'node:zlib';

export const FRAME_MAGIC = 0x314c5345;
export const FRAME_HEADER_BYTES = 28;
export const FRAME_SPANS = 1;
export const FRAME_RELEASE = 2;

/** What a frame's header says; a spans frame's payload starts at FRAME_HEADER_BYTES + idLength. */
export interface FrameHead {
  kind: number;
  length: number;
  codec: number;
  count: number;
  seq: number;
  idLength: number;
}

/** The header and trace id of a spans frame; the payload follows it as it is. */
export function spansFrameHeader(traceId: string, codec: number, count: number, seq: number, payload: Uint8Array) {
  const idLength = Buffer.byteLength(traceId, 'latin1');
  const header = Buffer.allocUnsafe(FRAME_HEADER_BYTES + idLength);
  header.writeUInt32LE(FRAME_MAGIC, 0);
  header.writeUInt32LE(FRAME_HEADER_BYTES + idLength + payload.byteLength, 4);
  header.writeUInt8(FRAME_SPANS, 12);
  header.writeUInt8(codec, 13);
  header.writeUInt16LE(idLength, 14);
  header.writeUInt32LE(count, 16);
  header.writeDoubleLE(seq, 20);
  header.write(traceId, FRAME_HEADER_BYTES, 'latin1');
  header.writeUInt32LE(crc32(payload, crc32(header.subarray(12))) >>> 0, 8);
  return header;
}

/** A trace released: its frames with a sequence number up to `seq`. */
export interface Released {
  traceId: string;
  seq: number;
}

/** A whole release frame. */
export function releaseFrame(released: readonly Released[]): Buffer {
  let length = FRAME_HEADER_BYTES;
  for (const { traceId } of released) length += 2 + Buffer.byteLength(traceId, 'latin1') + 8;
  const frame = Buffer.allocUnsafe(length);
  frame.writeUInt32LE(FRAME_MAGIC, 0);
  frame.writeUInt32LE(length, 4);
  frame.writeUInt8(FRAME_RELEASE, 12);
  frame.writeUInt8(0, 13);
  frame.writeUInt16LE(0, 14);
  frame.writeUInt32LE(released.length, 16);
  frame.writeDoubleLE(0, 20);
  let at = FRAME_HEADER_BYTES;
  for (const { traceId, seq } of released) {
    const written = frame.write(traceId, at + 2, 'latin1');
    frame.writeUInt16LE(written, at);
    frame.writeDoubleLE(seq, at + 2 + written);
    at += 2 + written + 8;
  }
  frame.writeUInt32LE(crc32(frame.subarray(12)) >>> 0, 8);
  return frame;
}

/** The header at the start of `bytes`, or undefined when it is not one (or its frame cannot fit in `room`). */
export function readFrameHead(bytes: Buffer, room: number): FrameHead | undefined {
  if (bytes.length < FRAME_HEADER_BYTES || bytes.readUInt32LE(0) !== FRAME_MAGIC) return undefined;
  const head = {
    length: bytes.readUInt32LE(4),
    kind: bytes.readUInt8(12),
    codec: bytes.readUInt8(13),
    idLength: bytes.readUInt16LE(14),
    count: bytes.readUInt32LE(16),
    seq: bytes.readDoubleLE(20),
  };
  if (head.kind !== FRAME_SPANS && head.kind !== FRAME_RELEASE) return undefined;
  if (head.length < FRAME_HEADER_BYTES + head.idLength || head.length > room) return undefined;
  return head;
}

/** Whether a whole frame's bytes match its CRC. */
export function frameIntact(frame: Buffer): boolean {
  return frame.length >= FRAME_HEADER_BYTES && crc32(frame.subarray(12)) >>> 0 === frame.readUInt32LE(8);
}

/** The trace id of a spans frame (its bytes from the start, at least header and id). */
export function frameTraceId(bytes: Buffer, head: FrameHead): string {
  return bytes.toString('latin1', FRAME_HEADER_BYTES, FRAME_HEADER_BYTES + head.idLength);
}

/** What a whole release frame releases. */
export function releasedBy(frame: Buffer, head: FrameHead): Released[] {
  const released: Released[] = [];
  let at = FRAME_HEADER_BYTES;
  for (let i = 0; i < head.count && at + 2 <= frame.length; i++) {
    const length = frame.readUInt16LE(at);
    if (at + 2 + length + 8 > frame.length) break;
    released.push({
      traceId: frame.toString('latin1', at + 2, at + 2 + length),
      seq: frame.readDoubleLE(at + 2 + length),
    });
    at += 2 + length + 8;
  }
  return released;
}
