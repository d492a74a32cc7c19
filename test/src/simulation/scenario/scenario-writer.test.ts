/**
 * The scenario writer is the loader's inverse: what it writes loads as the same scenario, and
 * writing that again gives the same bytes, header comments included.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../../../src/simulation/scenario/scenario-loader.ts';
import { formatScenario, scenarioHeader } from '../../../../src/simulation/scenario/scenario-writer.ts';

const REHEARSAL = `# Rehearsal of conversation conv-7 of support-agent.

# recorded: criteria-judge revision 1: fail — "✗ Gave the tracking number"

name: support-agent-conv-7
description: Rehearses conversation conv-7 of support-agent.
participants:
  end_user:
    type: scripted
    messages:
      - Where is my order A-17?
      - 'And: what about "C-08"?'
      - |-
        Two lines,
        as typed.
  agent:
    type: evaluated
    model: claude-sonnet-4-6
    system_prompt: You are the support agent of an outdoor-gear shop.
    tools:
      - name: get_order
        source: recorded
        description: Looks an order up.
        input_schema:
          type: object
          properties:
            orderId:
              type: string
          required:
            - orderId
        recordings:
          - arguments: {orderId: A-17}
            result: '{"orderId":"A-17","status":"shipped"}'
          - arguments: {orderId: Z-99}
            error: no such order
      - name: ping
        source: recorded
        recordings:
          - arguments: {}
            result: null
      - name: flight_lookup
        source: builtin
conversations:
  - name: chat
    between: [end_user, agent]
    initiated_by: end_user
max_turns: 4
eval_criteria:
  - The agent answered every question
  - name: tracking
    description: Gave the tracking number
    require_tool_call: [get_order]
    weight: 2
`;

describe('scenario writer', () => {
  it('writes every shipped scenario so that it loads as the same scenario, and again as the same text', () => {
    const files = readdirSync('scenarios').filter((file) => file.endsWith('.yaml'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const loaded = parseScenario(readFileSync(`scenarios/${file}`, 'utf8'), file);
      const written = formatScenario(loaded);
      const reloaded = parseScenario(written, file);
      expect(reloaded, file).toEqual(loaded);
      expect(formatScenario(reloaded), file).toBe(written);
    }
  });

  it('round-trips a scripted, recorded scenario byte for byte, header comments included', () => {
    const scenario = parseScenario(REHEARSAL);
    expect(scenarioHeader(REHEARSAL)).toEqual([
      'Rehearsal of conversation conv-7 of support-agent.',
      '',
      'recorded: criteria-judge revision 1: fail — "✗ Gave the tracking number"',
    ]);
    expect(formatScenario(scenario, { header: scenarioHeader(REHEARSAL) })).toBe(REHEARSAL);
  });

  it('leaves out what equals a default and writes long tool arguments as a block', () => {
    const long = { query: 'x'.repeat(90) };
    const scenario = parseScenario(REHEARSAL);
    const agent = scenario.participants[1];
    agent.tools = [
      {
        source: 'recorded',
        name: 'search',
        description: '',
        inputSchema: { type: 'object' },
        recordings: [{ arguments: long, result: 'found' }],
      },
    ];
    const written = formatScenario({ ...scenario, maxTurns: 20, evalCriteria: [] });
    expect(written).not.toContain('max_turns');
    expect(written).not.toContain('eval_criteria');
    expect(written).not.toContain('input_schema');
    expect(written).toContain(`      - name: search
        source: recorded
        recordings:
          - arguments:
              query: ${long.query}
            result: found
`);
    expect(written.startsWith('name: support-agent-conv-7\n')).toBe(true);
    expect(parseScenario(written).participants[1].tools).toEqual(agent.tools);
  });
});
