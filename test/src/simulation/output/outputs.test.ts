import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { combineResults } from '../../../../src/judge/criteria-judge.ts';
import type { JudgeTranscriptEntry } from '../../../../src/judge/transcript.ts';
import { saveDatasetEntry, toPlan, utcStamp } from '../../../../src/simulation/output/dataset-writer.ts';
import { createTranscriptPrinter } from '../../../../src/simulation/output/transcript-printer.ts';
import { passHatK, passHatKs } from '../../../../src/simulation/run/pass-hat-k.ts';
import type { ScenarioRunResult } from '../../../../src/simulation/run/run-scenario.ts';

const transcript: JudgeTranscriptEntry[] = [
  { conversation: 'support_chat', type: 'message', sender: 'end_user', content: 'Hi' },
  { conversation: 'agent_assist', type: 'tool_call', tool: 'lookup', arguments: { id: 1 } },
  {
    conversation: 'agent_assist',
    type: 'tool_result',
    tool: 'lookup',
    arguments: { id: 1 },
    result: null,
    error: 'not found',
  },
  { conversation: 'agent_assist', type: 'message', sender: 'agent', content: 'Ask for the reference' },
  { type: 'event', name: 'case_created', data: { id: 'C1' } },
];

describe('outputs', () => {
  it('prints tagged, colored lines with a conversation column and a blank line when it changes', () => {
    const lines: string[] = [];
    const printer = createTranscriptPrinter({ write: (line) => lines.push(line), color: true, showConversation: true });
    for (const entry of transcript) printer.entry(entry);
    const tag = (color: number, text: string) => `\u001b[${color}m${text.padEnd(17)}\u001b[0m`;
    expect(lines[0]).toBe(`${tag(32, '👤 END_USER')} | support_chat   | Hi`);
    expect(lines[1]).toBe('');
    expect(lines[2]).toBe('');
    expect(lines[3]).toBe(`${tag(33, '⚙ CALL')} | agent_assist   | lookup({"id":1})`);
    expect(lines).toContain(`${tag(31, '⚙ ERROR')} | agent_assist   | not found`);
    expect(lines).toContain(`${tag(34, '🤖 AGENT')} | agent_assist   | Ask for the reference`);
    expect(lines).toContain(`${tag(2, '⚡ EVENT')} |                | case_created: {"id":"C1"}`);
  });

  it('prints the evaluation with per-criterion results, the overall score and the verdict', () => {
    const lines: string[] = [];
    const printer = createTranscriptPrinter({
      write: (line) => lines.push(line),
      color: false,
      showConversation: false,
    });
    printer.evaluation(
      combineResults([
        {
          name: 'a',
          description: 'Looked it up',
          criterionType: 'binary',
          weight: 2,
          passed: true,
          score: 1,
          reasoning: 'called lookup',
          outcome: 'judged',
        },
        {
          name: 'b',
          description: 'Was kind',
          criterionType: 'scored',
          weight: 1,
          passed: false,
          score: 0.4,
          reasoning: 'curt',
          outcome: 'judged',
          passThreshold: 0.5,
        },
      ]),
    );
    expect(lines).toEqual([
      '=== Evaluation ===',
      '  [PASS] Looked it up',
      '         Score: 1.0 | called lookup',
      '  [FAIL] Was kind',
      '         Score: 0.4 | curt',
      '  Overall score: 0.80',
      '  Summary: called lookup; curt',
      '  Result: FAIL',
    ]);
  });

  it(
    'writes the dataset entry to <out>/<scenario>/<scenario>_<UTC stamp>.json with plan, transcript and ' +
      'evaluation',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'evalon-dataset-'));
      try {
        const result = {
          runId: 'r1',
          scenarioName: 'demo',
          trial: 1,
          transcript,
          endReason: { type: 'stalled' },
          evaluation: combineResults([]),
          passed: true,
          finalContext: {},
          recording: [],
          durationMs: 1,
        } as ScenarioRunResult;
        const when = new Date(Date.UTC(2026, 2, 23, 14, 5, 9));
        const first = await saveDatasetEntry(result, dir, when);
        const second = await saveDatasetEntry(result, dir, when);
        expect(first).toBe(join(dir, 'demo', 'demo_20260323T140509Z.json'));
        expect(second).toBe(join(dir, 'demo', 'demo_20260323T140509Z_2.json'));
        const saved = JSON.parse(await readFile(first, 'utf8'));
        expect(saved.plan).toEqual([{ step: 1, tool: 'lookup', arguments: { id: 1 } }]);
        expect(saved.transcript).toEqual(transcript);
        expect(saved.evaluation).toMatchObject({ scenario_name: 'demo', passed: true, overall_score: 0, criteria: [] });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
      expect(utcStamp(new Date(Date.UTC(2026, 0, 2, 3, 4, 5)))).toBe('20260102T030405Z');
      expect(toPlan([])).toEqual([]);
    },
  );

  it('computes pass^k as C(c,k)/C(n,k)', () => {
    expect(passHatK(10, 10, 10)).toBe(1);
    expect(passHatK(4, 2, 1)).toBe(0.5);
    expect(passHatK(4, 2, 2)).toBeCloseTo(1 / 6);
    expect(passHatK(4, 2, 3)).toBe(0);
    expect(passHatKs(3, 2)).toEqual({ 1: 2 / 3, 2: 1 / 3, 3: 0 });
    expect(() => passHatK(3, 4, 1)).toThrow(RangeError);
  });
});
