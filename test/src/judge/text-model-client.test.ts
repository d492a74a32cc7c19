import { describe, expect, it } from 'vitest';
import { criteriaSchema } from '../../../src/judge/criterion-schema.ts';
import { judgeCriteria } from '../../../src/judge/criteria-judge.ts';
import { textModelClient, toPrompt, type ChatMessage } from '../../../src/judge/text-model-client.ts';

describe('text models (the reference Llm interface)', () => {
  it('wraps a plain function: identity returns its prompt', async () => {
    const client = textModelClient((prompt) => prompt);
    const response = await client.createMessage({ max_tokens: 5, messages: [{ role: 'user', content: 'hello' }] });
    expect(response.content).toEqual([{ type: 'text', text: 'user: hello' }]);
    const bare = await textModelClient((prompt) => prompt).createMessage({ max_tokens: 5, system: '', messages: [] });
    expect(bare.content[0]).toEqual({ type: 'text', text: '' });
  });

  it('flattens system and turns into one prompt', () => {
    expect(toPrompt('You are a judge.', [{ role: 'user', content: 'score this' }])).toBe(
      'You are a judge.\n\nuser: score this',
    );
    expect(toPrompt('only system', [])).toBe('only system');
  });

  it('flattens a chat through complete by default', async () => {
    const prompts: string[] = [];
    const client = textModelClient({
      complete: (prompt) => {
        prompts.push(prompt);
        return 'ok';
      },
    });
    await client.createMessage({
      max_tokens: 5,
      system: 'You are a judge.',
      messages: [{ role: 'user', content: 'score this' }],
    });
    expect(prompts).toEqual(['You are a judge.\n\nuser: score this']);
  });

  it('hands the chat structurally to completeChat when the model has one, and never calls complete', async () => {
    const chats: Array<[string, ChatMessage[]]> = [];
    const client = textModelClient({
      complete: () => {
        throw new Error('complete must not be used');
      },
      completeChat: (system, messages) => {
        chats.push([system, messages]);
        return 'fine';
      },
    });
    await client.createMessage({ max_tokens: 5, system: 'sys', messages: [{ role: 'user', content: 'hi' }] });
    expect(chats).toEqual([['sys', [{ role: 'user', content: 'hi' }]]]);
  });

  it('judges with a text model: weights and scenario name kept, binary score from passed', async () => {
    const client = textModelClient((prompt) =>
      prompt.includes('first')
        ? '{"passed": true, "score": 1.0, "reasoning": "good"}'
        : '{"passed": false, "score": 0.0, "reasoning": "bad"}',
    );
    const verdict = await judgeCriteria({
      criteria: criteriaSchema.parse([
        { name: 'first', weight: 2 },
        { name: 'second', weight: 1 },
      ]),
      transcript: [],
      model: client,
    });
    expect(verdict.criteria.map((c) => c.passed)).toEqual([true, false]);
    expect(verdict.overallScore).toBeCloseTo(2 / 3);
    expect(verdict.summary).toBe('good; bad');
  });
});
