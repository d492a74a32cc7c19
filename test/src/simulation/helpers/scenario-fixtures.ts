/** Small scenarios built in code for runtime tests. */
import { parseScenario } from '../../../../src/simulation/scenario/scenario-loader.ts';
import type { Scenario } from '../../../../src/simulation/scenario/scenario.ts';

/** The reference test fixture: end_user and agent in `chat`, started by end_user, one binary criterion "ok". */
export function chatScenario(name = 'chat_fixture', extra = ''): Scenario {
  return parseScenario(
    `name: ${name}
description: fixture
participants:
  end_user: { type: simulated, persona: a customer, goal: get help }
  agent: { type: evaluated }
conversations:
  - name: chat
    between: [end_user, agent]
    initiated_by: end_user
eval_criteria:
  - ok
${extra}`,
    `${name}.yaml`,
  );
}

/** The agent-assist topology: end_user <-> representative, agent observes support_chat and talks to the rep. */
export function assistScenario(extra = ''): Scenario {
  return parseScenario(
    `name: assist_fixture
description: fixture
participants:
  end_user: { type: simulated, persona: a customer, goal: cancel }
  representative: { type: simulated, persona: a rep, goal: help }
  agent: { type: evaluated }
conversations:
  - name: support_chat
    between: [end_user, representative]
    initiated_by: end_user
  - name: agent_assist
    between: [agent, representative]
observations:
  - participant: agent
    observes: [support_chat]
eval_criteria:
  - ok
${extra}`,
    'assist_fixture.yaml',
  );
}
