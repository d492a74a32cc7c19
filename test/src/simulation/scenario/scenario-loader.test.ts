import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ScenarioError } from '../../../../src/simulation/scenario/scenario-error.ts';
import { loadScenario, parseScenario } from '../../../../src/simulation/scenario/scenario-loader.ts';

const SHIPPED = [
  'billing_dispute_assist',
  'comprehensive_payment_issue',
  'hotel_cancellation_assist',
  'order_refund',
  'payment_activation',
  'reschedule_flight',
];

function errorLines(yaml: string): string[] {
  try {
    parseScenario(yaml, 'bad.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    return (error as Error).message.split('\n');
  }
  throw new Error('expected a ScenarioError');
}

const base = (participants: string, conversations: string, rest = '') => `name: x
description: d
participants:
${participants}
conversations:
${conversations}
${rest}`;

const ok = base(
  '  end_user: { type: simulated }\n  agent: { type: evaluated }',
  '  - { name: chat, between: [end_user, agent], initiated_by: end_user }',
);

describe('scenario loader', () => {
  it('ships the six example scenarios, and each loads', async () => {
    expect(
      readdirSync('scenarios')
        .filter((file) => file.endsWith('.yaml'))
        .sort(),
    ).toEqual(SHIPPED.map((name) => `${name}.yaml`));
    for (const name of SHIPPED) {
      const scenario = await loadScenario(`scenarios/${name}.yaml`);
      expect(scenario.name).toBe(name);
      expect(scenario.participants.filter((p) => p.type === 'evaluated')).toHaveLength(1);
      expect(scenario.evalCriteria.length).toBeGreaterThan(0);
      expect(scenario.sourcePath).toBe(`scenarios/${name}.yaml`);
    }
  });

  it('reads ordinal criteria as rubric (two shipped scenarios have them) instead of rejecting the file', async () => {
    const scenario = await loadScenario('scenarios/comprehensive_payment_issue.yaml');
    expect(scenario.evalCriteria.find((c) => c.name === 'escalate_if_needed')).toMatchObject({
      criterionType: 'rubric',
      passThreshold: 0.5,
    });
  });

  it('applies the defaults', () => {
    const scenario = parseScenario(ok);
    expect(scenario).toMatchObject({
      maxTurns: 20,
      context: {},
      observations: [],
      eventSources: [],
      evalCriteria: [],
      expectContext: [],
    });
    expect(scenario.participants[0]).toEqual({ name: 'end_user', type: 'simulated', persona: '', goal: '' });
  });

  it('reads the agent-assist topology, response_speed, endpoint and event sources', async () => {
    const scenario = await loadScenario('scenarios/hotel_cancellation_assist.yaml');
    expect(scenario.conversations).toEqual([
      { name: 'support_chat', between: ['end_user', 'representative'], initiatedBy: 'end_user' },
      { name: 'agent_assist', between: ['agent', 'representative'] },
    ]);
    expect(scenario.observations).toEqual([{ participant: 'agent', observes: ['support_chat'] }]);
    expect(scenario.participants.find((p) => p.name === 'representative')?.responseSpeed).toBe('medium');
    const withSource = parseScenario(
      ok.replace('agent: { type: evaluated }', 'agent: { type: evaluated, endpoint: "http://localhost:8080" }') +
        '\nevent_sources:\n  case_events:\n    description: cases\n    emits:\n      - event: case_created\n     ' +
        '   schema: { case_id: string }\n',
    );
    expect(withSource.participants[1].endpoint).toBe('http://localhost:8080');
    expect(withSource.eventSources).toEqual([
      {
        name: 'case_events',
        type: 'simulated',
        description: 'cases',
        emits: [{ event: 'case_created', schema: { case_id: 'string' } }],
      },
    ]);
  });

  it('names the file, line, YAML path and what was expected', () => {
    expect(errorLines(ok.replace('type: evaluated', 'type: evalated'))).toEqual([
      'bad.yaml:5:18: participants.agent.type: expected simulated, evaluated, custom or scripted, got a string ' +
        '("evalated")',
    ]);
    expect(errorLines(`${ok}\nmax_turn: 3\n`)).toEqual([
      'bad.yaml:9:1: max_turn: unknown key "max_turn" (did you mean "max_turns"?)',
    ]);
    expect(errorLines(`${ok}\nmax_turns: 0\n`)[0]).toContain('max_turns: expected a positive whole number');
    expect(errorLines(`${ok}\neval_criteria:\n  - { name: a, weight: heavy }\n`)).toEqual([
      'bad.yaml:10:24: eval_criteria[0].weight: expected a number, got a string ("heavy")',
    ]);
    expect(errorLines('name: x\n')).toEqual(expect.arrayContaining(['bad.yaml:1:1: description: is required']));
    expect(errorLines('name: [\n')[0]).toMatch(/^bad\.yaml:\d+:\d+: invalid YAML: /);
    expect(errorLines('')[0]).toBe('bad.yaml: the file is empty (expected a scenario mapping)');
  });

  it('rejects unknown names, duplicates, reserved names and a scenario without an evaluated participant', () => {
    expect(
      errorLines(
        base(
          '  end_user: {}\n  agent: { type: evaluated }',
          '  - { name: chat, between: [end_user, agnt], initiated_by: end_user }',
        ),
      ),
    ).toEqual([
      'bad.yaml:5:10: participants.agent: the evaluated participant "agent" is in no conversation (add it to a ' +
        'between list)',
      'bad.yaml:7:39: conversations[0].between[1]: unknown participant "agnt" (known: end_user, agent)',
    ]);
    expect(
      errorLines(
        base('  end_user: {}\n  agent: {}', '  - { name: chat, between: [end_user, agent], initiated_by: end_user }'),
      ),
    ).toEqual([
      'bad.yaml:4:3: participants: no evaluated participant (mark the agent under test with type: evaluated)',
    ]);
    expect(
      errorLines(
        base(
          '  end_user: {}\n  end_user: {}\n  agent: { type: evaluated }',
          '  - { name: chat, between: [end_user, agent] }',
        ),
      )[0],
    ).toContain('invalid YAML: Map keys must be unique');
    const lines = errorLines(
      base(
        '  user: {}\n  agent: { type: evaluated }\n  bot: { type: evaluated }',
        '  - { name: chat, between: [user, agent], initiated_by: bot }\n  - { name: chat, between: [user, bot] }',
        'observations:\n  - { participant: agent, observes: [nowhere] }',
      ),
    );
    expect(lines).toEqual([
      'bad.yaml:4:9: participants.user: participant name "user" is reserved (it conflicts with model API roles; ' +
        'choose another name)',
      'bad.yaml:6:16: participants.bot.type: a second evaluated participant (only one agent is evaluated per ' +
        'scenario; "agent" already is)',
      'bad.yaml:8:57: conversations[0].initiated_by: "bot" is not in between (user, agent)',
      'bad.yaml:9:13: conversations[1].name: duplicate conversation name "chat" (first used at conversations[0])',
      'bad.yaml:11:38: observations[0].observes[0]: unknown conversation or event source "nowhere" (known: chat)',
    ]);
  });

  it('rejects a scenario that nothing would start', () => {
    expect(
      errorLines(
        base('  end_user: {}\n  agent: { type: evaluated }', '  - { name: chat, between: [end_user, agent] }'),
      ),
    ).toEqual(['bad.yaml:7:3: conversations: no conversation has initiated_by (nothing would start the simulation)']);
  });

  it('reads expect_context assertions with dotted or list paths', () => {
    const scenario = parseScenario(
      `${ok}\nexpect_context:\n  - { path: bookings.B1.status, equals: cancelled }\n  - { name: mail, path: ` +
        `[contacts, a.b@c.d, email], absent: false, weight: 2 }\n`,
    );
    expect(scenario.expectContext).toEqual([
      { name: 'context bookings.B1.status', path: ['bookings', 'B1', 'status'], equals: 'cancelled', weight: 1 },
      { name: 'mail', path: ['contacts', 'a.b@c.d', 'email'], absent: false, weight: 2 },
    ]);
    expect(errorLines(`${ok}\nexpect_context:\n  - { path: a.b }\n`)[0]).toContain(
      'expect_context[0]: expected exactly one of equals, includes or absent',
    );
  });

  it('fails with the file name when the file cannot be read', async () => {
    await expect(loadScenario('scenarios/missing.yaml')).rejects.toThrow(
      'scenarios/missing.yaml: cannot read the scenario file (ENOENT)',
    );
  });
});
