/**
 * The rubric judge behind the collector's `llm-judge` evaluator: one model call judges a whole
 * transcript against a rubric (or a custom prompt) and returns passed, a score from 0 to 1, a label
 * and an explanation.
 *
 * The verdict is asked for as a forced `record_verdict` tool call and validated with zod (a JSON
 * object in a text reply is accepted too). The transcript travels as delimited data, one line per
 * entry with its content as JSON, shortened to fit `maxInputTokens` (budgeted-call.ts), and the
 * system prompt tells the judge never to follow instructions inside it. An unreadable verdict is
 * asked for again (once by default); still unreadable, `judgeRubric` throws `JudgeOutputError`:
 * the judge fails closed, it never passes by default.
 */
import { z } from 'zod';
import { budgetedCall } from './budgeted-call.ts';
import { DEFAULT_MAX_INPUT_TOKENS, fitRequest, type FittedRequest, type TranscriptForJudge } from './input-budget.ts';
import { DATA_SAFETY_RULE, JUDGE_MAX_TOKENS, RECORD_VERDICT_TOOL, transcriptSection } from './judge-prompt.ts';
import type { JsonObject } from './json-value.ts';
import {
  responseText,
  type ModelClient,
  type ModelRequest,
  type ModelResponse,
  type ModelUsage,
} from './model-client.ts';
import type { TranscriptTurn } from './shorten-transcript.ts';
import type { JudgeTranscriptEntry, UserMessagePredicate } from './transcript.ts';
import { extractJsonObject } from './verdict-parser.ts';

export const DEFAULT_RUBRIC_PREAMBLE = [
  'You are an expert evaluator judging one interaction of an AI ' +
    'agent: what it was asked, the tools it called and what it replied.',
  'Judge the transcript against the rubric below, and only against it.',
].join(' ');

/** The verdict fields, as the judge must record them. */
export const rubricVerdictSchema = z.object({
  passed: z.boolean(),
  score: z.number().min(0).max(1),
  label: z.string().trim().min(1).max(100).optional(),
  explanation: z.string(),
});

export type RubricVerdictFields = z.infer<typeof rubricVerdictSchema>;

export interface RubricJudgeOptions {
  model: ModelClient;
  transcript: readonly JudgeTranscriptEntry[];
  /** Judged instead of `transcript` when set: a conversation, one turn per interaction, each turn marked. */
  turns?: readonly TranscriptTurn[];
  /** Which messages are the user's, kept whole longest when shortening (default: sender `user` or `human`). */
  isUserMessage?: UserMessagePredicate;
  /** Tokens the request may take, estimated (default 100,000); the transcript is shortened to fit. */
  maxInputTokens?: number;
  /** Told each request fitted to the budget, again after a refusal as too long. */
  onTranscriptFitted?: (fitted: FittedRequest) => void;
  /** What a good interaction looks like; shown to the judge after the preamble. */
  rubric?: string;
  /** Replaces the default preamble (the judge's instructions). The transcript is never put into it. */
  promptTemplate?: string;
  /** Model for the call (the client's default otherwise). */
  modelName?: string;
  /** When set, passed = score >= passThreshold; otherwise the judge's own `passed`. */
  passThreshold?: number;
  /** Calls when the reply is unreadable (default 2: one retry). */
  maxAttempts?: number;
  signal?: AbortSignal;
}

export interface RubricVerdict {
  passed: boolean;
  score: number;
  label?: string;
  explanation: string;
  /** What the judge itself said about passing (differs from `passed` under a threshold). */
  judgePassed: boolean;
  /** Tokens of every call made, retries included. */
  usage: ModelUsage;
  /** The model asked. */
  model: string;
  /** Model calls made (2 after a retry for an unreadable reply). */
  calls: number;
  /** Characters of the transcript left out of the request (0 when it was sent whole). */
  omittedChars: number;
}

/** The judge's reply could not be read, even after the retry. Carries the tokens spent. */
export class JudgeOutputError extends Error {
  readonly usage: ModelUsage;
  readonly model: string;
  constructor(message: string, usage: ModelUsage, model: string) {
    super(message);
    this.name = 'JudgeOutputError';
    this.usage = usage;
    this.model = model;
  }
}

/** The request around a rendered transcript (input-budget.ts fits it to the budget). */
export function buildRubricRequest(
  options: Pick<RubricJudgeOptions, 'rubric' | 'promptTemplate' | 'modelName' | 'passThreshold'>,
  transcript: TranscriptForJudge,
): ModelRequest {
  const template = options.promptTemplate?.trim();
  const rubric = options.rubric?.trim();
  if (!template && !rubric) throw new TypeError('the rubric judge needs a rubric or a prompt template');
  const system = [
    template || DEFAULT_RUBRIC_PREAMBLE,
    ...(rubric ? [`## Rubric\n${rubric}`] : []),
    DATA_SAFETY_RULE,
  ].join('\n\n');
  const threshold =
    options.passThreshold !== undefined
      ? `The interaction passes at a score of ${options.passThreshold} or above; set \`passed\` accordingly.`
      : '';
  const user = [
    transcriptSection(transcript),
    [
      `Record your verdict with the ${RECORD_VERDICT_TOOL} tool: ` +
        `\`passed\` (boolean), \`score\` (a number from 0 to 1),`,
      '`label` (one or two words, e.g. excellent, acceptable, poor) and `explanation` (string, citing the transcript).',
      threshold,
      'If you cannot call the tool, reply with only a JSON object with those fields: no other fields, no markdown.',
    ]
      .filter((line) => line !== '')
      .join('\n'),
  ].join('\n\n');
  return {
    ...(options.modelName ? { model: options.modelName } : {}),
    max_tokens: JUDGE_MAX_TOKENS,
    system,
    messages: [{ role: 'user', content: user }],
    tools: [
      {
        name: RECORD_VERDICT_TOOL,
        description: 'Record the verdict on the interaction.',
        input_schema: VERDICT_INPUT_SCHEMA,
      },
    ],
    tool_choice: { type: 'tool', name: RECORD_VERDICT_TOOL },
  };
}

/**
 * Judges the transcript. Throws the client's error when the model call fails, `JudgeOutputError`
 * when the reply stays unreadable.
 */
export async function judgeRubric(options: RubricJudgeOptions): Promise<RubricVerdict> {
  const model = options.modelName ?? options.model.defaultModel;
  const call = budgetedCall(
    options.model,
    options.maxInputTokens ?? DEFAULT_MAX_INPUT_TOKENS,
    (maxInputTokens) =>
      fitRequest({
        turns: options.turns ?? [{ entries: options.transcript }],
        maxInputTokens,
        ...(options.isUserMessage ? { isUserMessage: options.isUserMessage } : {}),
        build: (transcript) => buildRubricRequest(options, transcript),
      }),
    options.onTranscriptFitted,
  );
  const attempts = Math.max(1, options.maxAttempts ?? 2);
  const usage: ModelUsage = { input_tokens: 0, output_tokens: 0 };
  let extra: ModelRequest['messages'] = [];
  let problem = '';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const response = await call.send(extra, options.signal ? { signal: options.signal } : undefined);
    usage.input_tokens += response.usage.input_tokens;
    usage.output_tokens += response.usage.output_tokens;
    const parsed = parseRubricVerdict(response);
    if (parsed.ok) {
      const { verdict } = parsed;
      const passed = options.passThreshold !== undefined ? verdict.score >= options.passThreshold : verdict.passed;
      return {
        passed,
        score: verdict.score,
        ...(verdict.label !== undefined ? { label: verdict.label } : {}),
        explanation: verdict.explanation,
        judgePassed: verdict.passed,
        usage,
        model,
        calls: attempt,
        omittedChars: call.fitted.transcript.omittedChars,
      };
    }
    problem = parsed.problem;
    extra = [
      { role: 'assistant', content: parsed.raw.trim() === '' ? '(empty reply)' : parsed.raw },
      {
        role: 'user',
        content:
          `That reply could not be read: ${parsed.problem}. Record the verdict again with the ` +
          `${RECORD_VERDICT_TOOL} tool, exactly in the format asked for.`,
      },
    ];
  }
  throw new JudgeOutputError(`the judge's reply was unreadable after ${attempts} attempt(s): ${problem}`, usage, model);
}

export type ParsedRubricVerdict =
  | { ok: true; verdict: RubricVerdictFields }
  | { ok: false; problem: string; raw: string };

/** Reads the `record_verdict` tool input (or a JSON object in the text) and validates it. */
export function parseRubricVerdict(response: ModelResponse): ParsedRubricVerdict {
  const toolUse = response.content.find((block) => block.type === 'tool_use' && block.name === RECORD_VERDICT_TOOL);
  const input = toolUse && toolUse.type === 'tool_use' ? toolUse.input : undefined;
  const raw = input ? JSON.stringify(input) : responseText(response);
  const json = input ?? extractJsonObject(raw);
  if (!json)
    return {
      ok: false,
      problem: raw.trim() === '' ? 'the reply is empty' : 'the reply holds no verdict (no tool call, no JSON object)',
      raw,
    };
  const result = rubricVerdictSchema.safeParse(json);
  if (result.success) return { ok: true, verdict: result.data };
  const problem = result.error.issues
    .map((issue) => `\`${issue.path.join('.') || 'verdict'}\`: ${issue.message}`)
    .join('; ');
  return { ok: false, problem, raw };
}

const VERDICT_INPUT_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    passed: { type: 'boolean', description: 'Whether the interaction meets the rubric.' },
    score: { type: 'number', minimum: 0, maximum: 1, description: 'How well it meets the rubric, 0 to 1.' },
    label: { type: 'string', description: 'A one- or two-word category, e.g. excellent, acceptable, poor.' },
    explanation: { type: 'string', description: 'Why, citing the transcript.' },
  },
  required: ['passed', 'score', 'explanation'],
};
