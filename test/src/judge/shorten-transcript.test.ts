/**
 * The shortening policy, rule by rule: what is kept whole, what is cut first and how (from the
 * middle, the longest first, down to a floor), whole early turns, the last resort, the markers,
 * and that the same input always gives the same output.
 */
import { describe, expect, it } from 'vitest';
import {
  LAST_RESORT_FLOOR_CHARS,
  SHORTEN_FLOOR_CHARS,
  shortenTranscript,
  type TranscriptTurn,
} from '../../../src/judge/shorten-transcript.ts';
import { cutMarker } from '../../../src/judge/shortened-transcript.ts';
import { renderTranscript, type JudgeTranscriptEntry } from '../../../src/judge/transcript.ts';

const user = (content: string): JudgeTranscriptEntry => ({ type: 'message', sender: 'user', content });
const assistant = (content: string): JudgeTranscriptEntry => ({ type: 'message', sender: 'assistant', content });
const call = (tool: string, args: Record<string, string>): JudgeTranscriptEntry => ({
  type: 'tool_call',
  tool,
  arguments: args,
});
const result = (tool: string, value: string): JudgeTranscriptEntry => ({
  type: 'tool_result',
  tool,
  arguments: {},
  result: value,
});

/** A letter repeated, with its position every 100 characters, so heads and tails are recognisable. */
function text(letter: string, length: number): string {
  let out = '';
  for (let i = 0; out.length < length; i++) out += `${letter}${i}`.padEnd(100, letter);
  return out.slice(0, length);
}

/** The rendered lines, by kind: `[user]`, `[tool_result]`… (marker lines are `[turns …]`, `[entries …]`). */
const kinds = (rendered: string) => rendered.split('\n').map((line) => /^\[([^\]\s]+)/.exec(line)?.[1]);

const interaction = (): JudgeTranscriptEntry[] => [
  user(`Summarise the page at https://example.com/report, please. Context: ${text('u', 12_000)}`),
  call('fetch_page', { url: 'https://example.com/report' }),
  result('fetch_page', text('p', 200_000)),
  assistant(`Thinking about the page: ${text('t', 30_000)}`),
  call('fetch_page', { url: 'https://example.com/appendix' }),
  result('fetch_page', text('a', 50_000)),
  assistant(`The report says revenue grew 12% and the appendix lists the regions. ${text('f', 12_000)}`),
];

describe('shortenTranscript', () => {
  it('sends a transcript that fits unchanged, without turn headers for a single turn, omitting nothing', () => {
    const entries = [user('Where is A-17?'), call('lookup', { order: 'A-17' }), assistant('Shipped.')];
    const shortened = shortenTranscript({ turns: [{ entries }], budgetChars: 10_000 });
    expect(shortened.text).toBe(renderTranscript(entries));
    expect(shortened).toMatchObject({
      omittedChars: 0,
      cutEntries: 0,
      omittedTurns: 0,
      omittedEntries: 0,
      keptWholeCut: 'none',
      fits: true,
      turnHeaders: false,
    });
    expect(shortened.chars).toBe(shortened.originalChars);
  });

  it(
    'keeps the user’s messages, the final response, tool names and arguments and the order whole; cuts long ' +
      'tool results and intermediate messages from the middle',
    () => {
      const entries = interaction();
      const shortened = shortenTranscript({ turns: [{ entries }], budgetChars: 40_000 });
      expect(shortened.fits).toBe(true);
      expect(shortened.chars).toBeLessThanOrEqual(40_000);
      const lines = shortened.text.split('\n');
      const whole = renderTranscript(entries).split('\n');
      expect(kinds(shortened.text)).toEqual([
        'user',
        'tool_call',
        'tool_result',
        'assistant',
        'tool_call',
        'tool_result',
        'assistant',
      ]);
      // Kept whole: user message, both tool calls, final response.
      for (const index of [0, 1, 4, 6]) expect(lines[index]).toBe(whole[index]);
      // Cut from the middle: head and tail kept around the marker.
      for (const index of [2, 3, 5]) {
        expect(lines[index]).toMatch(/…\[[\d,]+ characters omitted\]…/);
        expect(lines[index].length).toBeLessThan(whole[index].length);
      }
      expect(lines[2].startsWith('[tool_result] fetch_page: "p0ppp')).toBe(true);
      expect(lines[2].endsWith('pp"')).toBe(true);
      expect(lines[3].startsWith('[assistant]: "Thinking about the page: t0tt')).toBe(true);
      expect(shortened).toMatchObject({ cutEntries: 3, keptWholeCut: 'none', omittedTurns: 0 });
      // What the markers say was omitted adds up.
      const said = [...shortened.text.matchAll(/…\[([\d,]+) characters omitted\]…/g)].map((m) =>
        Number(m[1].replaceAll(',', '')),
      );
      expect(said.reduce((a, b) => a + b, 0)).toBe(shortened.omittedChars);
    },
  );

  it('cuts the longest first: one cap for all, so shorter pieces stay whole while a longer one is cut', () => {
    const entries = [user('q'), result('big', text('b', 60_000)), result('medium', text('m', 8_000)), assistant('a')];
    const shortened = shortenTranscript({ turns: [{ entries }], budgetChars: 30_000 });
    const lines = shortened.text.split('\n');
    expect(lines[1]).toContain('characters omitted');
    expect(lines[2]).toBe(renderTranscript([entries[2]]));
    expect(shortened.cutEntries).toBe(1);
    // As much as the budget allows is kept: the cap is raised until the next character would not fit.
    expect(shortened.chars).toBeGreaterThan(30_000 - 10);
  });

  it('cuts pieces no further than the floor before leaving out turns', () => {
    const turns: TranscriptTurn[] = Array.from({ length: 6 }, (_, i) => ({
      entries: [user(`question ${i + 1}`), result('search', text('r', 20_000)), assistant(`answer ${i + 1}`)],
    }));
    // At the floor all six turns need ~6 × 1,060 characters; 5,000 does not hold them.
    const shortened = shortenTranscript({ turns, budgetChars: 5_000 });
    expect(shortened.omittedTurns).toBeGreaterThan(0);
    for (const block of shortened.blocks) {
      if (block.type !== 'turn') continue;
      const resultLine = block.lines.find((line) => line.kind === 'tool_result')!;
      const piece = resultLine.pieces.find((p) => p.role === 'tool_result')!;
      expect(piece.text.length).toBeGreaterThanOrEqual(SHORTEN_FLOOR_CHARS - 10);
    }
  });

  it('leaves out whole early turns from the second on, never the first or the last, with a marker line', () => {
    const turns: TranscriptTurn[] = Array.from({ length: 10 }, (_, i) => ({
      label: `interaction-${i + 1}`,
      entries: [user(`question ${i + 1}`), result('search', text('r', 5_000)), assistant(`answer ${i + 1}`)],
    }));
    const shortened = shortenTranscript({ turns, budgetChars: 6_000 });
    expect(shortened.fits).toBe(true);
    const rows = shortened.text.split('\n');
    expect(rows[0]).toBe('[turn 1 of 10] interaction-1');
    const marker = rows.find((row) => row.startsWith('[turns '))!;
    expect(marker).toMatch(/^\[turns 2–(\d+) omitted: (\d+) turns, [\d,]+ characters\]$/);
    const [, to, count] = /2–(\d+) omitted: (\d+)/.exec(marker)!.map(Number);
    expect(count).toBe(to - 1);
    expect(shortened.omittedTurns).toBe(count);
    expect(rows).toContain(`[turn ${to + 1} of 10] interaction-${to + 1}`);
    expect(rows).toContain('[turn 10 of 10] interaction-10');
    expect(rows.at(-1)).toBe('[assistant]: "answer 10"');
    // The turns kept show their user message and final response whole.
    expect(rows).toContain('[user]: "question 1"');
    expect(rows).toContain('[user]: "question 10"');
    // The fewest turns are left out: one turn fewer would not fit.
    expect(shortened.omittedTurns).toBeLessThan(8);
  });

  it('marks a single omitted turn in the singular', () => {
    const turns: TranscriptTurn[] = [1, 2, 3].map((n) => ({
      entries: [user(`q${n}`), result('search', text('r', 3_000)), assistant(`a${n}`)],
    }));
    const shortened = shortenTranscript({ turns, budgetChars: 2_500 });
    expect(shortened.text).toMatch(/^\[turn 2 omitted: 1 turn, [\d,]+ characters\]$/m);
  });

  it('cuts final responses and tool arguments next, and the user’s messages only as the last resort', () => {
    const entries = [
      user(text('u', 3_000)),
      call('search', { query: text('q', 3_000) }),
      result('search', text('r', 3_000)),
      assistant(text('f', 3_000)),
    ];
    const finalsAndArgs = shortenTranscript({ turns: [{ entries }], budgetChars: 5_500 });
    expect(finalsAndArgs.keptWholeCut).toBe('final_responses_and_arguments');
    const lines = finalsAndArgs.text.split('\n');
    expect(lines[0]).toBe(renderTranscript([entries[0]]));
    expect(lines[1]).toContain('characters omitted');
    expect(lines[3]).toContain('characters omitted');
    expect(finalsAndArgs.chars).toBeLessThanOrEqual(5_500);
    for (const line of lines.slice(1)) expect(line.length).toBeGreaterThanOrEqual(LAST_RESORT_FLOOR_CHARS);

    const everything = shortenTranscript({ turns: [{ entries }], budgetChars: 1_500 });
    expect(everything.keptWholeCut).toBe('user_messages');
    expect(everything.fits).toBe(true);
    expect(everything.text.split('\n')[0]).toMatch(/^\[user\]: "u0uuu.*…\[[\d,]+ characters omitted\]….*u"$/);
    expect(kinds(everything.text)).toEqual(['user', 'tool_call', 'tool_result', 'assistant']);
  });

  it('as a final resort leaves out whole entries after the first, keeping the last, with a marker', () => {
    const entries = [
      user('start'),
      ...Array.from({ length: 400 }, (_, i) => call('step', { n: String(i) })),
      assistant('done'),
    ];
    const shortened = shortenTranscript({ turns: [{ entries }], budgetChars: 2_000 });
    expect(shortened.fits).toBe(true);
    const rows = shortened.text.split('\n');
    expect(rows[0]).toBe('[user]: "start"');
    expect(rows[1]).toMatch(/^\[entries 2–(\d+) omitted: ([\d,]+) entries, [\d,]+ characters\]$/);
    expect(rows.at(-1)).toBe('[assistant]: "done"');
    expect(shortened.omittedEntries).toBeGreaterThan(300);
  });

  it('writes the cut marker with the omitted count, thousands separated', () => {
    expect(cutMarker(1_998_000)).toBe('…[1,998,000 characters omitted]…');
    expect(cutMarker(12)).toBe('…[12 characters omitted]…');
  });

  it('never splits an escape sequence or a surrogate pair where it cuts', () => {
    const tricky = '\\"\n😀'.repeat(20_000);
    const shortened = shortenTranscript({
      turns: [{ entries: [user('q'), result('r', tricky), assistant('a')] }],
      budgetChars: 3_000,
    });
    const line = shortened.text.split('\n')[1];
    const value = line.slice('[tool_result] r: '.length);
    const [head, tail] = value.split(/…\[[\d,]+ characters omitted\]…/);
    // Each side is valid JSON string text once closed: no dangling backslash, no lone surrogate.
    expect(() => JSON.parse(`${head}"`)).not.toThrow();
    expect(() => JSON.parse(`"${tail}`)).not.toThrow();
    const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    expect(loneSurrogate.test(head) || loneSurrogate.test(tail)).toBe(false);
  });

  it('is deterministic: the same input gives the same output', () => {
    const turns: TranscriptTurn[] = Array.from({ length: 12 }, (_, i) => ({ label: `t${i}`, entries: interaction() }));
    const a = shortenTranscript({ turns, budgetChars: 50_000 });
    const b = shortenTranscript({ turns, budgetChars: 50_000 });
    expect(b).toEqual(a);
    expect(b.text).toBe(a.text);
  });

  it('fits a 300-turn conversation, summarising early turns as omitted', () => {
    const turns: TranscriptTurn[] = Array.from({ length: 300 }, (_, i) => ({
      label: `turn-${i + 1}`,
      entries: [
        user(`Customer message ${i + 1}: ${text('c', 400)}`),
        call('lookup_order', { order: `A-${i + 1}` }),
        result('lookup_order', text('o', 4_000)),
        assistant(`Reply ${i + 1}: ${text('r', 600)}`),
      ],
    }));
    const budgetChars = 300_000;
    const shortened = shortenTranscript({ turns, budgetChars });
    expect(shortened.fits).toBe(true);
    expect(shortened.chars).toBeLessThanOrEqual(budgetChars);
    expect(shortened.originalChars).toBeGreaterThan(1_500_000);
    expect(shortened.omittedTurns).toBeGreaterThan(0);
    expect(shortened.keptWholeCut).toBe('none');
    const rows = shortened.text.split('\n');
    expect(rows[0]).toBe('[turn 1 of 300] turn-1');
    expect(rows.find((row) => row.startsWith('[turns 2–'))).toMatch(
      /^\[turns 2–\d+ omitted: \d+ turns, [\d,]+ characters\]$/,
    );
    expect(rows).toContain('[turn 300 of 300] turn-300');
    // The last turn reads in full but for its long tool result.
    expect(rows.at(-1)).toBe(renderTranscript([turns[299].entries[3]]));
  });
});
