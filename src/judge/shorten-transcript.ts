/**
 * The shortening policy: what of a transcript the judge reads when the whole of it does not fit its
 * input budget. A pure function (no model call, no clock, no randomness: the same input always
 * gives the same output) over turns of entries — a single interaction is one turn, a conversation
 * one turn per interaction — and a budget in characters of the rendered transcript. Rules, in the
 * order they apply, each only when the previous ones are not enough:
 *
 * 1. Long tool results and errors, long intermediate messages (the agent's or a system prompt,
 *    not the turn's final response), event data and traces are cut **from the middle**, keeping
 *    head and tail around `…[N characters omitted]…`, the longest first: one cap for all of them,
 *    as high as the budget allows, never below SHORTEN_FLOOR_CHARS.
 * 2. Whole **early turns** are left out, from the second on (`[turns 2–41 omitted: 40 turns, …]`);
 *    the first and the last turn always stay. Rule 1's cap is then raised again as far as the
 *    remaining turns allow.
 * 3. What is otherwise kept whole is cut too: final responses and tool arguments (with rule 1's
 *    pieces, down to LAST_RESORT_FLOOR_CHARS), then, as the last resort, the user's messages.
 * 4. Whole entries are left out of the longest turn, from its second entry on
 *    (`[entries 2–9,001 omitted: …]`), until the rest fits.
 *
 * Kept whole until rule 3: the user's messages, each turn's final response, tool names and
 * arguments, and always the order of entries and every entry's kind and names.
 */
import {
  isUserSender,
  lineText,
  transcriptLines,
  type JudgeTranscriptEntry,
  type LinePiece,
  type PieceRole,
  type TranscriptLine,
  type UserMessagePredicate,
} from './transcript.ts';
import {
  cutMarker,
  omittedEntriesMarker,
  omittedTurnsMarker,
  renderShortenedTranscript,
  turnHeader,
  type OmittedRange,
  type ShortenedTranscript,
  type TranscriptBlock,
} from './shortened-transcript.ts';
import { safeHeadEnd, safeTailStart } from './transcript-encoding.ts';

/** A cut piece keeps at least this many characters under rules 1 and 2. */
export const SHORTEN_FLOOR_CHARS = 1_000;
/** Under rule 3, final responses, tool arguments and rule 1's pieces keep at least this many. */
export const LAST_RESORT_FLOOR_CHARS = 200;

export interface TranscriptTurn {
  /** Printed after the turn's number (`[turn 3 of 40] <label>`), e.g. an interaction's id or time. */
  label?: string;
  entries: readonly JudgeTranscriptEntry[];
}

export interface ShortenTranscriptOptions {
  /** In order. A single interaction is one turn; it is printed without a turn header unless labelled. */
  turns: readonly TranscriptTurn[];
  /** Characters of the rendered transcript (the result's `text`) to stay within. */
  budgetChars: number;
  /** Which messages are the user's (default: sender `user` or `human`). */
  isUserMessage?: UserMessagePredicate;
}

const TIER: Record<PieceRole, number> = {
  syntax: 0,
  tool_result: 1,
  intermediate_message: 1,
  event_data: 1,
  trace: 1,
  final_response: 2,
  tool_arguments: 2,
  user_message: 3,
};

interface Stage {
  /** Pieces of tiers 1..maxTier are cut. */
  maxTier: number;
  floor: number;
}
const STAGES: readonly Stage[] = [
  { maxTier: 1, floor: SHORTEN_FLOOR_CHARS },
  { maxTier: 2, floor: LAST_RESORT_FLOOR_CHARS },
  { maxTier: 3, floor: 0 },
];
const NOTHING_CUT: Stage = { maxTier: 0, floor: Number.POSITIVE_INFINITY };

interface PreparedTurn {
  number: number;
  label?: string;
  header?: string;
  lines: TranscriptLine[];
  /** Each line's rendered length. */
  lineChars: number[];
  /** The turn's rendered length: its rows, each with a line break. */
  chars: number;
}

/** Which turns and entries are sent; `droppedTurns` and `droppedEntries` hold 0-based indices. */
interface Plan {
  droppedTurns?: { from: number; to: number };
  droppedEntries: Map<number, { from: number; to: number }>;
}

export function shortenTranscript(options: ShortenTranscriptOptions): ShortenedTranscript {
  const isUser = options.isUserMessage ?? isUserSender;
  const count = options.turns.length;
  const headers = count > 1 || (count === 1 && options.turns[0].label !== undefined);
  const turns = options.turns.map((turn, index): PreparedTurn => {
    const header = headers ? turnHeader(index + 1, count, turn.label) : undefined;
    const lines = transcriptLines(turn.entries, isUser);
    const lineChars = lines.map((line) => lineText(line).length);
    const chars = lineChars.reduce((sum, length) => sum + length + 1, header !== undefined ? header.length + 1 : 0);
    return {
      number: index + 1,
      ...(turn.label !== undefined ? { label: turn.label } : {}),
      ...(header !== undefined ? { header } : {}),
      lines,
      lineChars,
      chars,
    };
  });
  const budget = Math.max(0, Math.floor(options.budgetChars));
  const plan: Plan = { droppedEntries: new Map() };
  const originalChars = sizeModel(turns, plan, 0).fixed;
  const done = (stage: Stage, cap: number) => materialize(turns, plan, stage, cap, originalChars, budget, headers);
  if (originalChars <= budget) return done(NOTHING_CUT, Number.POSITIVE_INFINITY);

  // Rule 1: long results and intermediate messages, from the middle.
  const first = bestCap(sizeModel(turns, plan, STAGES[0].maxTier), STAGES[0].floor, budget);
  if (first !== undefined) return done(STAGES[0], first);

  // Rule 2: whole early turns, with rule 1 at its floor; then rule 1's cap raised again.
  if (count > 2) {
    plan.droppedTurns = fewestEarlyTurns(turns, budget);
    const cap = bestCap(sizeModel(turns, plan, STAGES[0].maxTier), STAGES[0].floor, budget);
    if (cap !== undefined) return done(STAGES[0], cap);
  }

  // Rule 3: the parts kept whole so far, user messages last.
  for (const stage of STAGES.slice(1)) {
    const cap = bestCap(sizeModel(turns, plan, stage.maxTier), stage.floor, budget);
    if (cap !== undefined) return done(stage, cap);
  }

  // Rule 4: whole entries, everything else at its minimum; then the least cutting that fits.
  dropEntries(turns, plan, budget);
  for (const stage of STAGES) {
    const cap = bestCap(sizeModel(turns, plan, stage.maxTier), stage.floor, budget);
    if (cap !== undefined) return done(stage, cap);
  }
  return done(STAGES[2], 0);
}

/** Sizes under a plan: what cannot be cut at this tier, and the lengths of the pieces that can. */
interface SizeModel {
  fixed: number;
  cuttable: number[];
}

function sizeModel(turns: readonly PreparedTurn[], plan: Plan, maxTier: number): SizeModel {
  let fixed = 0;
  let rows = 0;
  const cuttable: number[] = [];
  const dropped = plan.droppedTurns;
  for (let t = 0; t < turns.length; t++) {
    if (dropped && t >= dropped.from && t <= dropped.to) {
      if (t === dropped.from) {
        fixed += omittedTurnsMarker(rangeOfTurns(turns, dropped.from, dropped.to)).length;
        rows++;
      }
      continue;
    }
    const turn = turns[t];
    if (turn.header !== undefined) {
      fixed += turn.header.length;
      rows++;
    }
    const droppedLines = plan.droppedEntries.get(t);
    if (droppedLines) {
      fixed += omittedEntriesMarker(rangeOfLines(turn, droppedLines.from, droppedLines.to)).length;
      rows++;
    }
    for (let i = 0; i < turn.lines.length; i++) {
      if (droppedLines && i >= droppedLines.from && i <= droppedLines.to) continue;
      rows++;
      for (const piece of turn.lines[i].pieces) {
        const tier = TIER[piece.role];
        if (tier > 0 && tier <= maxTier) cuttable.push(piece.text.length);
        else fixed += piece.text.length;
      }
    }
  }
  return { fixed: fixed + Math.max(0, rows - 1), cuttable };
}

function totalAt(model: SizeModel, cap: number): number {
  let total = model.fixed;
  for (const length of model.cuttable) total += cutLength(length, cap);
  return total;
}

/** The highest cap (at least `floor`) under which the transcript fits, or undefined when even `floor` does not. */
function bestCap(model: SizeModel, floor: number, budget: number): number | undefined {
  if (totalAt(model, floor) > budget) return undefined;
  let low = floor;
  let high = floor;
  for (const length of model.cuttable) if (length > high) high = length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (totalAt(model, middle) <= budget) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** The fewest turns from the second on whose omission fits the budget (rule 1 at its floor); at most all but two. */
function fewestEarlyTurns(turns: readonly PreparedTurn[], budget: number): { from: number; to: number } {
  const floor = STAGES[0];
  const sizes = turns.map((turn) => {
    let size = turn.header !== undefined ? turn.header.length + 1 : 0;
    for (const line of turn.lines) size += lineSizeAt(line, floor.maxTier, floor.floor) + 1;
    return size;
  });
  let kept = sizes.reduce((sum, size) => sum + size, 0);
  let omittedChars = 0;
  const last = Math.max(1, turns.length - 2);
  for (let to = 1; to <= last; to++) {
    kept -= sizes[to];
    omittedChars += turns[to].chars;
    const range = { from: 2, to: to + 1, chars: omittedChars };
    // `kept` counts a line break after every row; the marker adds one row, and the last row has none.
    if (kept + omittedTurnsMarker(range).length <= budget) return { from: 1, to };
  }
  return { from: 1, to: last };
}

/**
 * Rule 4: from the turns with the most entries, entries from the second on (the last always
 * stays), until the transcript fits with every piece at its minimum.
 */
function dropEntries(turns: readonly PreparedTurn[], plan: Plan, budget: number): void {
  const minimum = STAGES[STAGES.length - 1];
  let total = totalAt(sizeModel(turns, plan, minimum.maxTier), minimum.floor);
  const kept = turns
    .map((turn, index) => ({ turn, index }))
    .filter(({ index }) => !plan.droppedTurns || index < plan.droppedTurns.from || index > plan.droppedTurns.to)
    .sort((a, b) => b.turn.lines.length - a.turn.lines.length || a.index - b.index);
  for (const { turn, index } of kept) {
    let without = total;
    let omittedChars = 0;
    for (let to = 1; to < turn.lines.length - 1; to++) {
      without -= lineSizeAt(turn.lines[to], minimum.maxTier, minimum.floor) + 1;
      omittedChars += turn.lineChars[to] + 1;
      plan.droppedEntries.set(index, { from: 1, to });
      const withMarker = without + omittedEntriesMarker({ from: 2, to: to + 1, chars: omittedChars }).length + 1;
      if (withMarker <= budget) return;
      if (to === turn.lines.length - 2) total = withMarker;
    }
  }
}

/** A line's rendered length when pieces of tiers 1..maxTier are cut to `cap`. */
function lineSizeAt(line: TranscriptLine, maxTier: number, cap: number): number {
  let size = 0;
  for (const piece of line.pieces) {
    const tier = TIER[piece.role];
    size += tier > 0 && tier <= maxTier ? cutLength(piece.text.length, cap) : piece.text.length;
  }
  return size;
}

function materialize(
  turns: readonly PreparedTurn[],
  plan: Plan,
  stage: Stage,
  cap: number,
  originalChars: number,
  budget: number,
  turnHeaders: boolean,
): ShortenedTranscript {
  const blocks: TranscriptBlock[] = [];
  let omittedChars = 0;
  let cutEntries = 0;
  let omittedTurns = 0;
  let omittedEntries = 0;
  let cutRoles = 0;
  const dropped = plan.droppedTurns;
  for (let t = 0; t < turns.length; t++) {
    if (dropped && t >= dropped.from && t <= dropped.to) {
      if (t === dropped.from) {
        const range = rangeOfTurns(turns, dropped.from, dropped.to);
        blocks.push({ type: 'omitted_turns', range });
        omittedChars += range.chars;
        omittedTurns += range.to - range.from + 1;
      }
      continue;
    }
    const turn = turns[t];
    const droppedLines = plan.droppedEntries.get(t);
    const lines: TranscriptLine[] = [];
    turn.lines.forEach((line, i) => {
      if (droppedLines && i >= droppedLines.from && i <= droppedLines.to) return;
      let lineCut = false;
      const pieces = line.pieces.map((piece): LinePiece => {
        const tier = TIER[piece.role];
        if (tier === 0 || tier > stage.maxTier) return piece;
        const cut = cutPiece(piece.text, cap);
        if (cut.omitted === 0) return piece;
        lineCut = true;
        omittedChars += cut.omitted;
        cutRoles = Math.max(cutRoles, tier);
        return { role: piece.role, text: cut.text };
      });
      if (lineCut) cutEntries++;
      lines.push(lineCut ? { kind: line.kind, pieces } : line);
    });
    const block: TranscriptBlock = {
      type: 'turn',
      number: turn.number,
      ...(turn.label !== undefined ? { label: turn.label } : {}),
      lines,
    };
    if (droppedLines) {
      block.omittedEntries = rangeOfLines(turn, droppedLines.from, droppedLines.to);
      omittedChars += block.omittedEntries.chars;
      omittedEntries += droppedLines.to - droppedLines.from + 1;
    }
    blocks.push(block);
  }
  const result: ShortenedTranscript = {
    blocks,
    turnCount: turns.length,
    turnHeaders,
    originalChars,
    text: '',
    chars: 0,
    omittedChars,
    cutEntries,
    omittedTurns,
    omittedEntries,
    keptWholeCut: cutRoles >= 3 ? 'user_messages' : cutRoles === 2 ? 'final_responses_and_arguments' : 'none',
    fits: true,
  };
  result.text = renderShortenedTranscript(result);
  result.chars = result.text.length;
  result.fits = result.chars <= budget;
  return result;
}

function cutLength(length: number, cap: number): number {
  if (length <= cap) return length;
  const keep = Math.max(0, cap - cutMarker(length).length);
  return Math.min(length, keep + cutMarker(length - keep).length);
}

function cutPiece(text: string, cap: number): { text: string; omitted: number } {
  const length = text.length;
  if (cutLength(length, cap) >= length) return { text, omitted: 0 };
  const keep = Math.max(0, cap - cutMarker(length).length);
  const headEnd = safeHeadEnd(text, Math.ceil(keep / 2));
  const tailStart = Math.max(headEnd, safeTailStart(text, length - Math.floor(keep / 2)));
  const omitted = tailStart - headEnd;
  return { text: `${text.slice(0, headEnd)}${cutMarker(omitted)}${text.slice(tailStart)}`, omitted };
}

/** Turns `from`..`to` (0-based) as a 1-based range with their rendered size (rows and line breaks). */
function rangeOfTurns(turns: readonly PreparedTurn[], from: number, to: number): OmittedRange {
  let chars = 0;
  for (let t = from; t <= to; t++) chars += turns[t].chars;
  return { from: from + 1, to: to + 1, chars };
}

function rangeOfLines(turn: PreparedTurn, from: number, to: number): OmittedRange {
  let chars = 0;
  for (let i = from; i <= to; i++) chars += turn.lineChars[i] + 1;
  return { from: from + 1, to: to + 1, chars };
}
