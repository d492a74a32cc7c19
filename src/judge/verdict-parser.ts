/**
 * Reads a judge reply: the input of a `record_verdict` tool call, else a JSON object in the text
 * (a fenced block if there is one, else the first `{...}` span). Anything unreadable or missing the
 * verdict field is a problem, never a default: the judge fails closed.
 */
import type { CriterionType } from './criterion.ts';
import { isJsonObject, type JsonObject } from './json-value.ts';
import { RECORD_VERDICT_TOOL } from './judge-prompt.ts';
import { responseText, type ModelResponse } from './model-client.ts';

export type ParsedVerdict =
  | { ok: true; passed?: boolean; score?: number; reasoning: string }
  | { ok: false; problem: string; raw: string };

export function parseVerdict(response: ModelResponse, type: CriterionType): ParsedVerdict {
  const toolUse = response.content.find((block) => block.type === 'tool_use' && block.name === RECORD_VERDICT_TOOL);
  const raw = toolUse && toolUse.type === 'tool_use' ? JSON.stringify(toolUse.input) : responseText(response);
  const json = toolUse && toolUse.type === 'tool_use' ? toolUse.input : extractJsonObject(raw);
  if (!json)
    return { ok: false, problem: raw.trim() === '' ? 'the reply is empty' : 'the reply holds no JSON object', raw };
  const reasoning = typeof json.reasoning === 'string' ? json.reasoning : '';
  if (type === 'binary') {
    if (typeof json.passed !== 'boolean') return { ok: false, problem: '`passed` is missing or not a boolean', raw };
    return { ok: true, passed: json.passed, reasoning };
  }
  const score = json.score;
  if (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 1) {
    return { ok: false, problem: '`score` is missing or not a number from 0 to 1', raw };
  }
  return { ok: true, score, reasoning };
}

/** A JSON object in a text reply: a fenced block if there is one, else the first `{...}` span. */
export function extractJsonObject(text: string): JsonObject | undefined {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  const candidates = fenced ? [fenced[1]] : [text];
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start >= 0 && end > start) candidates.push(text.slice(start, end + 1));
  for (const candidate of candidates) {
    try {
      const value: unknown = JSON.parse(candidate.trim());
      if (isJsonObject(value)) return value;
    } catch {
      // try the next candidate
    }
  }
  return undefined;
}
