/** Reads the request headers that choose how a body is decoded. */
import type { OtlpFormat } from './decode.ts';

export type ContentEncoding = 'identity' | 'gzip' | 'deflate';

export const ACCEPTED_CONTENT_TYPES = 'application/x-protobuf, application/json';
export const ACCEPTED_CONTENT_ENCODINGS = 'gzip, deflate, identity';

/** The OTLP encoding named by Content-Type (parameters such as charset ignored), or undefined. */
export function formatOfContentType(contentType: string | undefined): OtlpFormat | undefined {
  if (contentType === undefined) return undefined;
  const semicolon = contentType.indexOf(';');
  const mediaType = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  if (mediaType === 'application/x-protobuf' || mediaType === 'application/protobuf') return 'protobuf';
  if (mediaType === 'application/json') return 'json';
  return undefined;
}

export function contentTypeOf(format: OtlpFormat): string {
  return format === 'protobuf' ? 'application/x-protobuf' : 'application/json';
}

/** The Content-Encoding to undo, or undefined when it is not one the receiver supports. */
export function parseContentEncoding(header: string | undefined): ContentEncoding | undefined {
  if (header === undefined) return 'identity';
  const encoding = header.trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return 'identity';
  if (encoding === 'gzip' || encoding === 'x-gzip') return 'gzip';
  if (encoding === 'deflate') return 'deflate';
  return undefined;
}
