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
