/**
 * Scripted participants, the evaluated participant's in-process settings (system_prompt, model) and
 * its declared tools (recorded and built-in), as the scenario loader reads them, and every mistake
 * reported at its YAML path.
 */
import { describe, expect, it } from 'vitest';
import { ScenarioError } from '../../../../src/simulation/scenario/scenario-error.ts';
import { parseScenario } from '../../../../src/simulation/scenario/scenario-loader.ts';

function errorLines(yaml: string): string[] {
  try {
    parseScenario(yaml, 'bad.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    return (error as Error).message.split('\n');
  }
  throw new Error('expected a ScenarioError');
}

/** end_user and agent in `chat`; `user` and `agent` are the participants' bodies (indented 4). */
const scenario = (user: string, agent: string) => `name: rehearsal
description: d
participants:
  end_user:
${user}
  agent:
${agent}
conversations:
  - { name: chat, between: [end_user, agent], initiated_by: end_user }
`;

const scripted = '    type: scripted\n    messages: [Hello, Where is my order A-17?]';
const evaluated = '    type: evaluated';

describe('scripted participants', () => {
  it('reads the messages in order, as written', () => {
    const loaded = parseScenario(scenario(scripted, evaluated));
    expect(loaded.participants[0]).toEqual({
      name: 'end_user',
      type: 'scripted',
      persona: '',
      goal: '',
      messages: ['Hello', 'Where is my order A-17?'],
    });
  });

  it('reports a scripted participant without messages, with none, or with a blank one, at its path', () => {
    expect(errorLines(scenario('    type: scripted', evaluated))).toEqual([
      'bad.yaml:5:5: participants.end_user.messages: a scripted participant needs messages (the list it sends, ' +
        'one per turn)',
    ]);
    expect(errorLines(scenario('    type: scripted\n    messages: []', evaluated))).toEqual([
      'bad.yaml:6:15: participants.end_user.messages: a scripted participant needs at least one message',
    ]);
    expect(errorLines(scenario('    type: scripted\n    messages: [Hi, "  "]', evaluated))).toEqual([
      'bad.yaml:6:20: participants.end_user.messages[1]: expected a non-empty message',
    ]);
  });

  it('rejects role-play keys on a scripted participant and messages on any other kind', () => {
    expect(errorLines(scenario(`${scripted}\n    persona: Emily\n    response_speed: fast`, evaluated))).toEqual([
      'bad.yaml:7:14: participants.end_user.persona: is not used by a scripted participant (it sends its messages ' +
        'as written; remove persona or set type: simulated)',
      'bad.yaml:8:21: participants.end_user.response_speed: is not used by a scripted participant (it sends its ' +
        'messages as written; remove response_speed or set type: simulated)',
    ]);
    expect(errorLines(scenario('    type: simulated\n    messages: [Hi]', evaluated))).toEqual([
      'bad.yaml:6:15: participants.end_user.messages: messages are only sent by a scripted participant (remove ' +
        'them or set type: scripted)',
    ]);
  });
});

describe('the evaluated participant in process: system_prompt, model and tools', () => {
  const tools = `    tools:
      - name: get_order
        source: recorded
        description: Looks an order up
        input_schema: { type: object, properties: { orderId: { type: string } } }
        recordings:
          - { arguments: { orderId: A-17 }, result: { status: shipped } }
          - { arguments: { orderId: Z-1 }, error: no such order }
          - { result: null }
      - { name: flight_lookup, source: builtin }`;

  it('reads the system prompt, the model and recorded and built-in tools', () => {
    const loaded = parseScenario(
      scenario(scripted, `${evaluated}\n    model: claude-x\n    system_prompt: You sell shoes.\n${tools}`),
    );
    expect(loaded.participants[1]).toEqual({
      name: 'agent',
      type: 'evaluated',
      persona: '',
      goal: '',
      model: 'claude-x',
      systemPrompt: 'You sell shoes.',
      tools: [
        {
          source: 'recorded',
          name: 'get_order',
          description: 'Looks an order up',
          inputSchema: { type: 'object', properties: { orderId: { type: 'string' } } },
          recordings: [
            { arguments: { orderId: 'A-17' }, result: { status: 'shipped' } },
            { arguments: { orderId: 'Z-1' }, error: 'no such order' },
            { arguments: {}, result: null },
          ],
        },
        { source: 'builtin', name: 'flight_lookup' },
      ],
    });
  });

  it('gives a recorded tool without description or schema an empty description and any arguments', () => {
    const loaded = parseScenario(
      scenario(scripted, `${evaluated}\n    tools: [{ name: t, source: recorded, recordings: [{ result: 1 }] }]`),
    );
    expect(loaded.participants[1].tools).toEqual([
      {
        source: 'recorded',
        name: 't',
        description: '',
        inputSchema: { type: 'object' },
        recordings: [{ arguments: {}, result: 1 }],
      },
    ]);
    expect(parseScenario(scenario(scripted, `${evaluated}\n    tools: []`)).participants[1].tools).toEqual([]);
  });

  it('reports a recorded tool without recordings and bad recordings at their paths', () => {
    const bad = `${evaluated}
    tools:
      - { name: get_order, source: recorded }
      - name: get_shipping
        source: recorded
        recordings: []
      - name: refund
        source: recorded
        input_schema: { type: string }
        recordings:
          - { arguments: { id: 1 } }
          - { arguments: { id: 2 }, result: ok, error: failed }
          - { arguments: [1], result: ok }`;
    expect(errorLines(scenario(scripted, bad))).toEqual([
      'bad.yaml:10:9: participants.agent.tools[0].recordings: a recorded tool needs at least one recording ' +
        '(arguments, and result or error)',
      'bad.yaml:13:21: participants.agent.tools[1].recordings: a recorded tool needs at least one recording ' +
        '(arguments, and result or error)',
      'bad.yaml:16:23: participants.agent.tools[2].input_schema: expected an object schema (type: object: tool ' +
        'arguments are a mapping)',
      'bad.yaml:18:13: participants.agent.tools[2].recordings[0]: expected result or error (what the call ' +
        'returned, or the error it failed with)',
      'bad.yaml:19:13: participants.agent.tools[2].recordings[1]: expected result or error, not both (a call ' +
        'either returned or failed)',
      'bad.yaml:20:26: participants.agent.tools[2].recordings[2].arguments: expected the arguments as a mapping, ' +
        'got a list',
    ]);
  });

  it('reports unknown sources, unknown built-ins, recordings on a built-in, bad and duplicate names', () => {
    const bad = `${evaluated}
    tools:
      - { name: a, source: replayed }
      - { name: flight_lokup, source: builtin }
      - { name: flight_lookup, source: builtin, recordings: [] }
      - { name: "get order", source: recorded, recordings: [{ result: 1 }] }`;
    expect(errorLines(scenario(scripted, bad))).toEqual([
      'bad.yaml:10:28: participants.agent.tools[0].source: expected recorded or builtin, got a string ("replayed")',
      'bad.yaml:11:17: participants.agent.tools[1].name: unknown built-in tool "flight_lokup" (did you mean ' +
        '"flight_lookup"?)',
      'bad.yaml:12:61: participants.agent.tools[2].recordings: is only for source: recorded (a built-in tool ' +
        'brings its own)',
      'bad.yaml:13:17: participants.agent.tools[3].name: expected a tool name of letters, digits, _ and - (at ' +
        'most 64 characters)',
    ]);
    const duplicate =
      `${evaluated}\n    tools: [{ name: a, source: recorded, recordings: [{ result: 1 }] }, ` +
      '{ name: a, source: recorded, recordings: [{ result: 2 }] }]';
    expect(errorLines(scenario(scripted, duplicate))).toEqual([
      'bad.yaml:9:81: participants.agent.tools[1].name: duplicate tool name "a" (first used at tools[0])',
    ]);
  });

  it('keeps in-process settings to the evaluated participant, and off a remote one', () => {
    expect(errorLines(scenario(`${scripted}\n    tools: []`, evaluated))).toEqual([
      'bad.yaml:7:12: participants.end_user.tools: tools is only used by the evaluated participant (remove it or ' +
        'set type: evaluated)',
    ]);
    expect(
      errorLines(scenario(scripted, `${evaluated}\n    endpoint: http://127.0.0.1:8080\n    model: claude-x`)),
    ).toEqual([
      'bad.yaml:10:12: participants.agent.model: model configures the in-process agent, but endpoint makes this a ' +
        'remote agent, which runs its own (remove model or endpoint)',
    ]);
  });
});
