/**
 * An interaction record built on the recorder thread, as the next stage gets it: its small fields
 * as they are, its content (messages, transcript, tool calls) parsed from the record's JSON the
 * first time any of it is read. Most of what reads a new record — the exporters' counters, the
 * evaluation processor's bindings, sampling and loop safety — reads only ids, agent, failure and
 * attributes; an interaction no evaluation is triggered for never pays for parsing its content.
 *
 * The record behaves as a plain one: every field is an own enumerable property (spread,
 * `JSON.stringify` and `structuredClone` see them all), and a content field can be assigned.
 */
import type { InteractionRecord } from '../../../src/model/records.ts';
import { freeBuffer } from '../../model/free-buffer.ts';

/** The fields parsed on first use. */
export const CONTENT_FIELDS = ['input', 'output', 'finalResponseText', 'transcript', 'toolCalls'] as const;

type ContentField = (typeof CONTENT_FIELDS)[number];

/** What a record is without its content: what the recorder thread sends beside the JSON. */
export type RecordHead = Omit<InteractionRecord, ContentField>;

export function headOf(record: InteractionRecord): RecordHead {
  const {
    input: _input,
    output: _output,
    finalResponseText: _text,
    transcript: _t,
    toolCalls: _calls,
    ...head
  } = record;
  return head;
}

/** Where a lazy record keeps its JSON and, once read, the parsed record (not enumerable). */
const CONTENT = Symbol('evalon.record.content');

interface Content {
  json: string | Uint8Array | undefined;
  parsed: InteractionRecord | undefined;
}

function contentOf(record: InteractionRecord): InteractionRecord {
  const content = (record as unknown as { [CONTENT]: Content })[CONTENT];
  if (!content.parsed) {
    const { json } = content;
    if (typeof json === 'object' && (json.buffer as ArrayBuffer).detached) {
      throw new Error(
        `interactions: the content of interaction ${record.interactionId} was read after its batch was ` +
          'released (a consumer that reads records later holds them: holdRecords)',
      );
    }
    const text =
      typeof json === 'string' ? json : Buffer.from(json!.buffer, json!.byteOffset, json!.byteLength).toString();
    content.parsed = JSON.parse(text) as InteractionRecord;
    content.json = undefined;
  }
  return content.parsed;
}

/** One accessor per content field, shared by every lazy record (no closure per record). */
const ACCESSORS: PropertyDescriptorMap = Object.fromEntries(
  CONTENT_FIELDS.map((field) => [
    field,
    {
      enumerable: true,
      configurable: true,
      get(this: InteractionRecord) {
        return contentOf(this)[field];
      },
      set(this: InteractionRecord, value: unknown) {
        Object.defineProperty(this, field, { value, enumerable: true, writable: true, configurable: true });
      },
    },
  ]),
);

/** The record of `head` whose content is parsed from `json` (the whole record) when first read. */
export function lazyRecord(head: RecordHead, json: string | Uint8Array): InteractionRecord {
  const record = { ...head } as InteractionRecord;
  Object.defineProperty(record, CONTENT, { value: { json, parsed: undefined } satisfies Content });
  Object.defineProperties(record, ACCESSORS);
  return record;
}

/**
 * The holds on each buffer of records' JSON (what the recorder thread sends with its answer, one
 * buffer for the records of a job). The records are in the ledger and handed on within a few ticks,
 * but their buffer is memory outside the heap that V8 gives back only at a full collection, long
 * after: at the peak of a burst such buffers were tens of MiB, most of them dead
 * (docs/benchmarks.md, "Ingest"). So whoever keeps a record's JSON holds its buffer, and the last
 * release frees it at once. A buffer never held is left to the garbage collector.
 */
const holds = new WeakMap<ArrayBuffer, number>();

export interface ContentHold {
  /** Lets go of the hold (once; a second call does nothing). */
  release(): void;
}

/**
 * Holds the buffers `json` lives in (its views of UTF-8 bytes; text needs no hold): once the last
 * hold of a buffer is released, the buffer is freed, and a record whose content was not read by
 * then fails when it is (its error names the interaction).
 */
export function holdContent(json: Iterable<string | Uint8Array | undefined>): ContentHold {
  const buffers = new Set<ArrayBuffer>();
  for (const part of json) {
    const buffer = typeof part === 'object' ? part.buffer : undefined;
    if (buffer instanceof ArrayBuffer && !buffer.detached) buffers.add(buffer);
  }
  for (const buffer of buffers) holds.set(buffer, (holds.get(buffer) ?? 0) + 1);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      for (const buffer of buffers) {
        const left = (holds.get(buffer) ?? 1) - 1;
        if (left > 0) holds.set(buffer, left);
        else {
          holds.delete(buffer);
          freeBuffer(buffer);
        }
      }
    },
  };
}

/**
 * Holds the buffers of the records' content not read yet (lazy records only): a consumer that
 * reads records after handing them on returns (the evaluation processor's intake) holds them
 * until it is done.
 */
export function holdRecords(records: readonly InteractionRecord[]): ContentHold {
  return holdContent(records.map((record) => (record as unknown as { [CONTENT]?: Content })[CONTENT]?.json));
}
