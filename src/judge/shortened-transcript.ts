/**
 * A shortened transcript: what the shortening policy (shorten-transcript.ts) decided to send, and
 * how it reads — turn headers (`[turn 3 of 40] label`), entries, and a marker line where whole
 * turns or entries were left out (`[turns 2–41 omitted: 40 turns, 1,234,567 characters]`); a piece
 * cut in the middle reads `…[N characters omitted]…` in place of its middle. Markers are the
 * renderer's own lines: no content can produce a line of its own (transcript-encoding.ts).
 */
import { encodeName } from './transcript-encoding.ts';
import { lineText, type TranscriptLine } from './transcript.ts';

export interface OmittedRange {
  /** 1-based, inclusive. */
  from: number;
  to: number;
  /** Characters of the rendered transcript they would have taken. */
  chars: number;
}

export type TranscriptBlock =
  | {
      type: 'turn';
      /** 1-based position among all turns. */
      number: number;
      label?: string;
      /** The entries sent, in order (some pieces cut in the middle). */
      lines: TranscriptLine[];
      /** Entries of this turn left out whole (rule 4): they were between line `from - 2` and `from - 1`. */
      omittedEntries?: OmittedRange;
    }
  | { type: 'omitted_turns'; range: OmittedRange };

/** Which kept-whole parts had to be cut (rule 3): none, final responses and tool arguments, or user messages too. */
export type KeptWholeCut = 'none' | 'final_responses_and_arguments' | 'user_messages';

export interface ShortenedTranscript {
  blocks: TranscriptBlock[];
  turnCount: number;
  /** Turns are printed with a header line (more than one turn, or a labelled one). */
  turnHeaders: boolean;
  /** Characters of the whole transcript, rendered. */
  originalChars: number;
  /** What is sent: turn headers, entries, and a marker line where turns or entries were left out. */
  text: string;
  /** `text.length`. */
  chars: number;
  /** Characters of the rendered transcript left out (0 when nothing was cut). */
  omittedChars: number;
  /** Entries cut in the middle. */
  cutEntries: number;
  omittedTurns: number;
  omittedEntries: number;
  keptWholeCut: KeptWholeCut;
  /** `chars <= budgetChars` (false only when not even one entry per kept turn fits). */
  fits: boolean;
}

/** The transcript as sent (the `text` of a ShortenedTranscript). */
export function renderShortenedTranscript(transcript: ShortenedTranscript): string {
  const rows: string[] = [];
  for (const block of transcript.blocks) {
    if (block.type === 'omitted_turns') {
      rows.push(omittedTurnsMarker(block.range));
      continue;
    }
    if (transcript.turnHeaders) rows.push(turnHeader(block.number, transcript.turnCount, block.label));
    const gap = block.omittedEntries;
    block.lines.forEach((line, i) => {
      if (gap && i === gap.from - 1) rows.push(omittedEntriesMarker(gap));
      rows.push(lineText(line));
    });
    if (gap && block.lines.length < gap.from) rows.push(omittedEntriesMarker(gap));
  }
  return rows.join('\n');
}

/** `…[1,998,000 characters omitted]…`: what replaces the middle of a cut piece. */
export function cutMarker(omitted: number): string {
  return `…[${thousands(omitted)} characters omitted]…`;
}

export function turnHeader(number: number, count: number, label: string | undefined): string {
  return `[turn ${number} of ${count}]${label !== undefined ? ` ${encodeName(label)}` : ''}`;
}

export function omittedTurnsMarker(range: OmittedRange): string {
  const n = range.to - range.from + 1;
  const which = n === 1 ? `turn ${range.from}` : `turns ${range.from}–${range.to}`;
  return `[${which} omitted: ${thousands(n)} ${n === 1 ? 'turn' : 'turns'}, ${thousands(range.chars)} characters]`;
}

export function omittedEntriesMarker(range: OmittedRange): string {
  const n = range.to - range.from + 1;
  const which = n === 1 ? `entry ${thousands(range.from)}` : `entries ${thousands(range.from)}–${thousands(range.to)}`;
  return `[${which} omitted: ${thousands(n)} ${n === 1 ? 'entry' : 'entries'}, ${thousands(range.chars)} characters]`;
}

/** `1234567` as `1,234,567` (the same in every locale). */
export function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
