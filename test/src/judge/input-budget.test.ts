/**
 * Fitting a judge request to `max_input_tokens`: the whole request counts (instructions, rubric,
 * schema, transcript), the judge is told in one line how its transcript was shortened, and a
 * conversation passed as turns reaches the model through the real SDK within the budget.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicModelClient } from '../../../src/judge/anthropic-model-client.ts';
import {
  CHARS_PER_TOKEN,
  estimateTokens,
  fitRequest,
  MIN_TRANSCRIPT_CHARS,
  requestChars,
  shorteningNote,
} from '../../../src/judge/input-budget.ts';
import type { ModelRequest } from '../../../src/judge/model-client.ts';
import { buildRubricRequest, judgeRubric } from '../../../src/judge/rubric-judge.ts';
import { shortenTranscript, type TranscriptTurn } from '../../../src/judge/shorten-transcript.ts';
import type { JudgeTranscriptEntry } from '../../../src/judge/transcript.ts';
import { createScriptedModel, type ScriptedModel } from '../../../src/testing/scripted-model.ts';

const user = (content: string): JudgeTranscriptEntry => ({ type: 'message', sender: 'user', content });
const assistant = (content: string): JudgeTranscriptEntry => ({ type: 'message', sender: 'assistant', content });
const fetched = (length: number): JudgeTranscriptEntry => ({
  type: 'tool_result',
  tool: 'fetch_page',
  arguments: { url: 'https://example.com' },
  result: 'x'.repeat(length),
});

const build = (rubric: string) => (transcript: { text: string; note?: string }) =>
  buildRubricRequest({ rubric }, transcript);

describe('fitRequest', () => {
  it('counts the whole request against the budget, so a longer rubric leaves less of the transcript', () => {
    const turns: TranscriptTurn[] = [{ entries: [user('q'), fetched(200_000), assistant('a')] }];
    const short = fitRequest({ turns, maxInputTokens: 20_000, build: build('Be accurate.') });
    const long = fitRequest({
      turns,
      maxInputTokens: 20_000,
      build: build(`Be accurate. ${'Check facts. '.repeat(2_000)}`),
    });
    for (const fitted of [short, long]) {
      expect(fitted.requestChars).toBe(requestChars(fitted.request));
      expect(fitted.requestChars).toBeLessThanOrEqual(20_000 * CHARS_PER_TOKEN);
      expect(fitted.estimatedTokens).toBe(Math.ceil(fitted.requestChars / CHARS_PER_TOKEN));
    }
    expect(long.transcript.omittedChars - short.transcript.omittedChars).toBeGreaterThan(20_000);
  });

  it('sends the transcript untouched and without a note when it fits', () => {
    const fitted = fitRequest({
      turns: [{ entries: [user('Where is A-17?'), assistant('Shipped.')] }],
      maxInputTokens: 5_000,
      build: build('Be accurate.'),
    });
    expect(fitted.transcript.omittedChars).toBe(0);
    expect(String(fitted.request.messages[0].content)).toContain(
      '## Transcript\n<transcript>\n[user]: "Where is A-17?"\n[assistant]: "Shipped."\n</transcript>',
    );
  });

  it('gives the transcript its minimum even when the rubric alone fills the budget', () => {
    const fitted = fitRequest({
      turns: [{ entries: [user('q'), fetched(50_000), assistant('a')] }],
      maxInputTokens: 1_000,
      build: build('Check facts. '.repeat(500)),
    });
    expect(fitted.transcript.chars).toBeLessThanOrEqual(MIN_TRANSCRIPT_CHARS);
    expect(fitted.transcript.chars).toBeGreaterThan(MIN_TRANSCRIPT_CHARS - 50);
    expect(fitted.transcript.fits).toBe(true);
  });

  it('puts the note on its own line before the transcript block, outside the data', () => {
    const fitted = fitRequest({
      turns: [{ entries: [user('q'), fetched(100_000), assistant('a')] }],
      maxInputTokens: 10_000,
      build: build('Be accurate.'),
    });
    const text = String(fitted.request.messages[0].content);
    expect(text).toMatch(/## Transcript\nNote: this transcript was shortened [^\n]+\n<transcript>\n/);
  });
});

describe('shorteningNote', () => {
  const entries = [user('u'.repeat(3_000)), fetched(3_000), assistant('f'.repeat(3_000))];
  it('says how much of how much was omitted, and how, in one line', () => {
    const note = shorteningNote(shortenTranscript({ turns: [{ entries }], budgetChars: 8_000 }))!;
    expect(note).toMatch(
      new RegExp(
        /^Note: this transcript was shortened to fit the judge's input budget: [\d,]+ of [\d,]+ characters /.source +
          /omitted \(1 long entry cut in the middle, where it reads "…\[N characters omitted\]…"\)\. /.source +
          /What was omitted is unknown to you: count it neither for nor against the agent\.$/.source,
      ),
    );
  });

  it('names left-out turns and entries, and says when even kept-whole parts were cut', () => {
    const turns: TranscriptTurn[] = Array.from({ length: 5 }, () => ({ entries }));
    const withTurns = shorteningNote(shortenTranscript({ turns, budgetChars: 7_000 }))!;
    expect(withTurns).toContain('early turns left out whole, where it reads "[turns … omitted: …]"');
    const lastResort = shorteningNote(shortenTranscript({ turns: [{ entries }], budgetChars: 1_000 }))!;
    expect(lastResort).toContain("Even the user's messages, final responses and tool arguments had to be cut.");
    expect(lastResort.split('\n')).toHaveLength(1);
  });

  it('is absent when nothing was omitted', () => {
    expect(shorteningNote(shortenTranscript({ turns: [{ entries }], budgetChars: 100_000 }))).toBeUndefined();
  });
});

describe('a judge given turns', () => {
  let scripted: ScriptedModel;
  beforeAll(async () => {
    scripted = await createScriptedModel();
  });
  afterAll(() => scripted.close());
  beforeEach(() => scripted.reset());

  it('refuses a budget that is not a positive number before calling the model', async () => {
    const model = createAnthropicModelClient({ baseURL: scripted.baseURL, apiKey: 'k', maxRetries: 0 });
    for (const maxInputTokens of [0, -5, Number.NaN])
      await expect(judgeRubric({ model, transcript: [user('q')], rubric: 'r', maxInputTokens })).rejects.toThrow(
        /maxInputTokens must be a positive number of tokens/,
      );
    expect(scripted.requests).toHaveLength(0);
  });

  it('judges a 300-turn conversation within its budget, turns marked, early turns summarised as omitted', async () => {
    scripted.fixedResponse({
      toolUse: [{ name: 'record_verdict', input: { passed: true, score: 1, explanation: 'ok' } }],
    });
    const turns: TranscriptTurn[] = Array.from({ length: 300 }, (_, i) => ({
      label: `interaction-${i + 1}`,
      entries: [user(`Question ${i + 1}`), fetched(3_000), assistant(`Answer ${i + 1}`)],
    }));
    const model = createAnthropicModelClient({ baseURL: scripted.baseURL, apiKey: 'k', maxRetries: 0 });
    const verdict = await judgeRubric({
      model,
      transcript: [],
      turns,
      rubric: 'Every answer is correct.',
      maxInputTokens: 50_000,
    });
    const [request] = scripted.requests;
    expect(requestChars(request.body as ModelRequest)).toBeLessThanOrEqual(50_000 * CHARS_PER_TOKEN);
    expect(estimateTokens(requestChars(request.body as ModelRequest))).toBeLessThanOrEqual(50_000);
    const text = String(request.body.messages[0].content);
    expect(text).toContain('<transcript>\n[turn 1 of 300] interaction-1\n[user]: "Question 1"');
    expect(text).toMatch(/\n\[turns 2–\d+ omitted: \d+ turns, [\d,]+ characters\]\n\[turn \d+ of 300\]/);
    expect(text).toContain('[turn 300 of 300] interaction-300\n[user]: "Question 300"');
    expect(text).toContain('[assistant]: "Answer 300"\n</transcript>');
    expect(verdict.omittedChars).toBeGreaterThan(700_000);
  });
});
