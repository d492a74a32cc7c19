/**
 * The judge's input budget: how many tokens one judge request may take (`max_input_tokens`), and
 * fitting a transcript into it. Tokens are estimated from characters, CHARS_PER_TOKEN to a token
 * (no model call: counting with the API would cost a request per judge call). The budget covers
 * the whole request — instructions, rubric or criterion, verdict schema and transcript — so the
 * transcript gets what the rest leaves, less a reserve for the one-line note that tells the judge
 * how it was shortened (shorten-transcript.ts decides what is cut).
 */
import type { ModelRequest } from './model-client.ts';
import { shortenTranscript, type TranscriptTurn } from './shorten-transcript.ts';
import { thousands, type ShortenedTranscript } from './shortened-transcript.ts';
import type { UserMessagePredicate } from './transcript.ts';

/**
 * Characters per token of the estimate. English prose runs near 4 characters a token, JSON, code
 * and markup nearer 3; 3 keeps the estimate on the safe side for the transcripts judges read.
 */
export const CHARS_PER_TOKEN = 3;
/** `max_input_tokens` when none is set: half of a 200k-token context window. */
export const DEFAULT_MAX_INPUT_TOKENS = 100_000;
/** The smallest `max_input_tokens` accepted: below it the prompt alone would not fit. */
export const MIN_MAX_INPUT_TOKENS = 1_000;
/** The transcript always gets at least this many characters, even when the prompt alone fills the budget. */
export const MIN_TRANSCRIPT_CHARS = 2_000;
/** Kept free for the shortening note when the transcript has to be shortened. */
const NOTE_RESERVE_CHARS = 600;

/** The transcript as a prompt builder places it. */
export interface TranscriptForJudge {
  /** The rendered transcript, to put between `<transcript>` tags. */
  text: string;
  /** One line for the judge saying that and how the transcript was shortened; absent when it was not. */
  note?: string;
}

export interface FittedRequest {
  request: ModelRequest;
  transcript: ShortenedTranscript;
  /** The budget it was fitted to. */
  maxInputTokens: number;
  /** Characters of the request's text: system prompt, messages and tool definitions. */
  requestChars: number;
  /** `requestChars` in tokens, estimated. */
  estimatedTokens: number;
}

export interface FitRequestOptions {
  turns: readonly TranscriptTurn[];
  maxInputTokens: number;
  isUserMessage?: UserMessagePredicate;
  /** Builds the request around a transcript (called twice: empty, to measure the rest, then for real). */
  build(transcript: TranscriptForJudge): ModelRequest;
}

/** The request with its transcript shortened so that the whole stays within `maxInputTokens` (estimated). */
export function fitRequest(options: FitRequestOptions): FittedRequest {
  const budgetChars = Math.floor(options.maxInputTokens * CHARS_PER_TOKEN);
  const frameChars = requestChars(options.build({ text: '' }));
  const transcriptBudget = Math.max(MIN_TRANSCRIPT_CHARS, budgetChars - frameChars - NOTE_RESERVE_CHARS);
  const transcript = shortenTranscript({
    turns: options.turns,
    budgetChars: transcriptBudget,
    ...(options.isUserMessage ? { isUserMessage: options.isUserMessage } : {}),
  });
  const note = shorteningNote(transcript);
  const request = options.build({ text: transcript.text, ...(note !== undefined ? { note } : {}) });
  const chars = requestChars(request);
  return {
    request,
    transcript,
    maxInputTokens: options.maxInputTokens,
    requestChars: chars,
    estimatedTokens: estimateTokens(chars),
  };
}

/** Characters of a request's text: system prompt, message contents and tool definitions. */
export function requestChars(request: ModelRequest): number {
  let chars = request.system?.length ?? 0;
  for (const message of request.messages) {
    if (typeof message.content === 'string') chars += message.content.length;
    else
      for (const block of message.content) {
        chars += block.type === 'text' ? block.text.length : JSON.stringify(block).length;
      }
  }
  if (request.tools) chars += JSON.stringify(request.tools).length;
  return chars;
}

export function estimateTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** The line that tells the judge the transcript was shortened, how, and how to treat what is missing. */
export function shorteningNote(transcript: ShortenedTranscript): string | undefined {
  const { cutEntries, omittedTurns, omittedEntries } = transcript;
  if (transcript.omittedChars === 0) return undefined;
  const how: string[] = [];
  if (cutEntries > 0) how.push(`${count(cutEntries, 'long entry', 'long entries')} ${CUT}`);
  if (omittedTurns > 0) how.push(`${count(omittedTurns, 'early turn', 'early turns')} ${TURNS_LEFT_OUT}`);
  if (omittedEntries > 0) how.push(`${count(omittedEntries, 'entry', 'entries')} ${ENTRIES_LEFT_OUT}`);
  const lastResort =
    transcript.keptWholeCut === 'user_messages'
      ? " Even the user's messages, final responses and tool arguments had to be cut."
      : transcript.keptWholeCut === 'final_responses_and_arguments'
        ? ' Even final responses and tool arguments had to be cut.'
        : '';
  return (
    `Note: this transcript was shortened to fit the judge's input budget: ${thousands(transcript.omittedChars)} of ` +
    `${thousands(transcript.originalChars)} characters omitted (${how.join('; ')}).${lastResort} What was ` +
    'omitted is unknown to you: count it neither for nor against the agent.'
  );
}

const CUT = 'cut in the middle, where it reads "…[N characters omitted]…"';
const TURNS_LEFT_OUT = 'left out whole, where it reads "[turns … omitted: …]"';
const ENTRIES_LEFT_OUT = 'left out whole, where it reads "[entries … omitted: …]"';

function count(n: number, one: string, many: string): string {
  return `${thousands(n)} ${n === 1 ? one : many}`;
}
