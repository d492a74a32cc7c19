/**
 * The colored transcript printer, live while the run goes: one line per entry, tagged with the
 * sender (the evaluated agent in blue, the others in rotating colors), a conversation column when
 * the scenario has several conversations, then the evaluation.
 */
import { compactJson } from '../../judge/json-value.ts';
import type { JudgeVerdict } from '../../judge/criteria-judge.ts';
import type { JudgeTranscriptEntry } from '../../judge/transcript.ts';
import { createPaint, type Style } from './ansi.ts';

export const TAG_WIDTH = 17;
export const CONVERSATION_WIDTH = 14;
const ROTATION: Style[] = ['green', 'magenta', 'cyan', 'yellow'];

export interface TranscriptPrinterOptions {
  write(line: string): void;
  color: boolean;
  showConversation: boolean;
  /** The evaluated participant, always blue (default "agent"). */
  agentName?: string;
}

export interface TranscriptPrinter {
  entry(entry: JudgeTranscriptEntry): void;
  evaluation(verdict: JudgeVerdict): void;
}

export function createTranscriptPrinter(options: TranscriptPrinterOptions): TranscriptPrinter {
  const paint = createPaint(options.color);
  const agent = (options.agentName ?? 'agent').toLowerCase();
  const colors = new Map<string, Style>();
  let lastConversation: string | undefined;

  function senderStyle(sender: string): Style {
    if (sender.toLowerCase() === agent) return 'blue';
    let style = colors.get(sender);
    if (!style) {
      style = ROTATION[colors.size % ROTATION.length];
      colors.set(sender, style);
    }
    return style;
  }

  function line(tag: string, style: Style, content: string, conversation: string | undefined): void {
    if (conversation !== undefined && lastConversation !== undefined && conversation !== lastConversation)
      options.write('');
    if (conversation !== undefined) lastConversation = conversation;
    const paddedTag = paint(style, tag.padEnd(TAG_WIDTH));
    const column = options.showConversation
      ? ` | ${(conversation ?? '').slice(0, CONVERSATION_WIDTH).padEnd(CONVERSATION_WIDTH)}`
      : '';
    options.write(`${paddedTag}${column} | ${content}`);
    options.write('');
  }

  return {
    entry(entry) {
      switch (entry.type) {
        case 'message':
          return line(
            `${iconOf(entry.sender)} ${entry.sender.toUpperCase()}`,
            senderStyle(entry.sender),
            entry.content,
            entry.conversation,
          );
        case 'tool_call':
          return line('⚙ CALL', 'yellow', `${entry.tool}(${compactJson(entry.arguments)})`, entry.conversation);
        case 'tool_result':
          return entry.error !== undefined
            ? line('⚙ ERROR', 'red', entry.error, entry.conversation)
            : line('⚙ RESULT', 'dim', JSON.stringify(entry.result, null, 2), entry.conversation);
        case 'event':
          return line('⚡ EVENT', 'dim', `${entry.name}: ${compactJson(entry.data)}`, entry.conversation);
      }
    },
    evaluation(verdict) {
      options.write(paint('bold', '=== Evaluation ==='));
      for (const criterion of verdict.criteria) {
        const mark = criterion.passed ? paint('green', '[PASS]') : paint('red', '[FAIL]');
        options.write(`  ${mark} ${criterion.description}`);
        options.write(`         Score: ${criterion.score.toFixed(1)} | ${criterion.reasoning}`);
      }
      options.write(`  Overall score: ${verdict.overallScore.toFixed(2)}`);
      options.write(`  Summary: ${verdict.summary}`);
      options.write(`  Result: ${verdict.passed ? paint('green', 'PASS') : paint('red', 'FAIL')}`);
    },
  };
}

function iconOf(sender: string): string {
  const name = sender.toLowerCase();
  if (name === 'agent') return '🤖';
  if (name === 'end_user' || name === 'user') return '👤';
  if (name === 'representative') return '🎧';
  return '💬';
}
