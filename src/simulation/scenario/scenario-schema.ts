/**
 * The zod schema of a scenario file. Shape errors come from zod; the cross-references (unknown
 * participant, conversation or event source names, duplicates, the single evaluated participant,
 * a conversation that starts the run) are checked in `checkReferences`, with the YAML path of the
 * offending value. Unknown keys are errors naming the closest known key.
 */
import { z } from 'zod';
import { criteriaSchema } from '../../judge/criterion-schema.ts';
import { DEFAULT_CRITERION_WEIGHT } from '../../judge/criterion.ts';
import { MIN_MAX_INPUT_TOKENS } from '../../judge/input-budget.ts';
import type { JsonObject, JsonValue } from '../../judge/json-value.ts';
import { describeValue } from '../../config/describe-value.ts';
import { strictObject } from '../../config/strict-object.ts';
import { isRecord } from '../../config/yaml-path.ts';
import { DEFAULT_MAX_TURNS, type ContextExpectation, type Scenario } from './scenario.ts';
import { checkParticipantKeys } from './participant-checks.ts';
import { toolsSchema } from './tool-schema.ts';

/** A value as `expected …, got …` reads it: `a string ("x")`, `a list`. */
const got = (value: unknown) => describeValue(value, 'article');

/** Names a participant cannot take: they are roles of the model API or the runner's own sender. */
export const RESERVED_PARTICIPANT_NAMES = ['user', 'assistant', 'system'];

const PARTICIPANT_TYPES = ['simulated', 'evaluated', 'custom', 'scripted'] as const;

const text = (what: string) => z.string({ error: (issue) => `expected ${what} as a string, got ${got(issue.input)}` });
const name = (what: string) =>
  text(what)
    .trim()
    .min(1, { error: `expected a non-empty ${what}` });
const nameList = (what: string) =>
  z.array(name(what), { error: (issue) => `expected a list of ${what}s, got ${got(issue.input)}` });
const mapping = <T extends z.ZodType>(value: T, what: string) =>
  z.record(z.string(), value, { error: (issue) => `expected a mapping of ${what}, got ${got(issue.input)}` });

const participant = strictObject(
  {
    type: z
      .enum(PARTICIPANT_TYPES, {
        error: (issue) => `expected simulated, evaluated, custom or scripted, got ${got(issue.input)}`,
      })
      .default('simulated'),
    // Optional here and '' in the scenario, so the checks can tell a written persona from none.
    persona: text('persona').optional(),
    goal: text('goal').optional(),
    template: text('template').optional(),
    endpoint: z
      .url({ protocol: /^https?$/, error: (issue) => `expected an http(s) URL, got ${got(issue.input)}` })
      .optional(),
    response_speed: z
      .enum(['fast', 'medium', 'slow'], {
        error: (issue) => `expected fast, medium or slow, got ${got(issue.input)}`,
      })
      .optional(),
    messages: z
      .array(
        text('message').refine((message) => message.trim() !== '', { error: 'expected a non-empty message' }),
        {
          error: (issue) => `expected a list of messages, got ${got(issue.input)}`,
        },
      )
      .optional(),
    system_prompt: text('system prompt').optional(),
    model: name('model name').optional(),
    tools: toolsSchema.optional(),
  },
  { expected: 'a participant mapping (type, persona, goal, ...)' },
);

const conversation = strictObject(
  {
    name: name('conversation name'),
    between: nameList('participant name').min(2, { error: 'expected at least two participants' }),
    initiated_by: name('participant name').optional(),
  },
  { expected: 'a conversation mapping (name, between, initiated_by)' },
);

const observation = strictObject(
  {
    participant: name('participant name'),
    observes: nameList('conversation or event source name').min(1, { error: 'expected at least one name to observe' }),
  },
  { expected: 'an observation mapping (participant, observes)' },
);

const eventSource = strictObject(
  {
    type: z
      .enum(['simulated', 'custom'], {
        error: (issue) => `expected simulated or custom, got ${got(issue.input)}`,
      })
      .default('simulated'),
    description: text('description').default(''),
    emits: z
      .array(
        strictObject(
          {
            event: name('event name'),
            schema: mapping(text('field type'), 'field names to types').default({}),
          },
          { expected: 'an event declaration (event, schema)' },
        ),
        { error: (issue) => `expected a list of event declarations, got ${got(issue.input)}` },
      )
      .default([]),
    class_name: text('class name').optional(),
  },
  { expected: 'an event source mapping (type, description, emits)' },
);

const jsonValue: z.ZodType<JsonValue> = z.json();

const contextPath = z.union(
  [
    text('path')
      .trim()
      .min(1)
      .transform((path) => path.split('.')),
    z.array(z.union([z.string(), z.number()]).transform(String)).min(1),
  ],
  {
    error: (issue) => `expected a dotted path or a list of keys, got ${got(issue.input)}`,
  },
);

const expectation = strictObject(
  {
    name: name('expectation name').optional(),
    path: contextPath,
    equals: jsonValue.optional(),
    includes: jsonValue.optional(),
    absent: z.boolean({ error: (issue) => `expected true or false, got ${got(issue.input)}` }).optional(),
    weight: z.number().min(0, { error: 'expected a weight >= 0' }).optional(),
  },
  { expected: 'a context expectation (path and one of equals, includes, absent)' },
).transform((raw, ctx): ContextExpectation => {
  const checks = [raw.equals, raw.includes, raw.absent].filter((value) => value !== undefined).length;
  if (checks !== 1) ctx.addIssue({ code: 'custom', message: 'expected exactly one of equals, includes or absent' });
  return {
    name: raw.name ?? `context ${raw.path.join('.')}`,
    path: raw.path,
    ...(raw.equals !== undefined ? { equals: raw.equals } : {}),
    ...(raw.includes !== undefined ? { includes: raw.includes } : {}),
    ...(raw.absent !== undefined ? { absent: raw.absent } : {}),
    weight: raw.weight ?? DEFAULT_CRITERION_WEIGHT,
  };
});

const scenarioFile = strictObject(
  {
    name: name('scenario name'),
    description: text('description'),
    participants: mapping(participant, 'participant names to participants'),
    conversations: z.array(conversation, {
      error: (issue) => `expected a list of conversations, got ${got(issue.input)}`,
    }),
    observations: z
      .array(observation, { error: (issue) => `expected a list of observations, got ${got(issue.input)}` })
      .default([]),
    event_sources: mapping(eventSource, 'event source names to event sources').default({}),
    context: z
      .record(z.string(), jsonValue, {
        error: (issue) => `expected a mapping (the ground truth), got ${got(issue.input)}`,
      })
      .nullish()
      .transform((value) => (value ?? {}) as JsonObject),
    max_turns: z
      .number({ error: (issue) => `expected a positive whole number, got ${got(issue.input)}` })
      .int({ error: 'expected a positive whole number' })
      .positive({ error: 'expected a positive whole number' })
      .default(DEFAULT_MAX_TURNS),
    eval_prompt_template: text('prompt template').optional(),
    eval_max_input_tokens: z
      .number({ error: (issue) => `expected a whole number of tokens, got ${got(issue.input)}` })
      .int({ error: 'expected a whole number of tokens' })
      .min(MIN_MAX_INPUT_TOKENS, {
        error: `expected at least ${MIN_MAX_INPUT_TOKENS} tokens (the judge's instructions alone take several hundred)`,
      })
      .optional(),
    eval_criteria: criteriaSchema.default([]),
    expect_context: z
      .array(expectation, {
        error: (issue) => `expected a list of context expectations, got ${got(issue.input)}`,
      })
      .default([]),
  },
  { expected: 'a scenario mapping' },
);

export type ScenarioFile = z.output<typeof scenarioFile>;

export const scenarioSchema = scenarioFile.superRefine(checkReferences, { when: () => true }).transform(
  (raw): Scenario => ({
    name: raw.name,
    description: raw.description,
    participants: Object.entries(raw.participants).map(([participantName, p]) => ({
      name: participantName,
      type: p.type,
      persona: p.persona ?? '',
      goal: p.goal ?? '',
      ...(p.template !== undefined ? { template: p.template } : {}),
      ...(p.endpoint !== undefined ? { endpoint: p.endpoint } : {}),
      ...(p.response_speed !== undefined ? { responseSpeed: p.response_speed } : {}),
      ...(p.messages !== undefined ? { messages: p.messages } : {}),
      ...(p.system_prompt !== undefined ? { systemPrompt: p.system_prompt } : {}),
      ...(p.model !== undefined ? { model: p.model } : {}),
      ...(p.tools !== undefined ? { tools: p.tools } : {}),
    })),
    conversations: raw.conversations.map((c) => ({
      name: c.name,
      between: c.between,
      ...(c.initiated_by !== undefined ? { initiatedBy: c.initiated_by } : {}),
    })),
    observations: raw.observations.map((o) => ({ participant: o.participant, observes: o.observes })),
    eventSources: Object.entries(raw.event_sources).map(([sourceName, s]) => ({
      name: sourceName,
      type: s.type,
      description: s.description,
      emits: s.emits,
      ...(s.class_name !== undefined ? { className: s.class_name } : {}),
    })),
    context: raw.context,
    maxTurns: raw.max_turns,
    ...(raw.eval_prompt_template?.trim() ? { evalPromptTemplate: raw.eval_prompt_template } : {}),
    ...(raw.eval_max_input_tokens !== undefined ? { evalMaxInputTokens: raw.eval_max_input_tokens } : {}),
    evalCriteria: raw.eval_criteria,
    expectContext: raw.expect_context,
  }),
);

/**
 * Cross-reference checks. They run even when the shape has problems (so a file's problems are
 * reported together) and therefore read the value defensively.
 */
function checkReferences(raw: ScenarioFile, ctx: z.core.$RefinementCtx<ScenarioFile>): void {
  const issue = (path: Array<string | number>, message: string) => ctx.addIssue({ code: 'custom', path, message });
  const participantMap = mappingOf(raw.participants);
  const sourceMap = mappingOf(raw.event_sources);
  const participants = Object.keys(participantMap);
  const sources = Object.keys(sourceMap);
  const conversationList = listOf(raw.conversations).map((c) => mappingOf(c));
  const conversations = conversationList.map((c) => c.name).filter((n): n is string => typeof n === 'string');
  const typeOf = (p: string) => mappingOf(participantMap[p]).type ?? 'simulated';

  for (const reserved of participants.filter((p) => RESERVED_PARTICIPANT_NAMES.includes(p.toLowerCase()))) {
    issue(
      ['participants', reserved],
      `participant name "${reserved}" is reserved (it conflicts with model API roles; choose another name)`,
    );
  }
  const evaluated = participants.filter((p) => typeOf(p) === 'evaluated');
  const typesValid = participants.every((p) => (PARTICIPANT_TYPES as readonly unknown[]).includes(typeOf(p)));
  if (evaluated.length === 0 && typesValid && isRecord(raw.participants)) {
    issue(['participants'], 'no evaluated participant (mark the agent under test with type: evaluated)');
  }
  for (const extra of evaluated.slice(1)) {
    issue(
      ['participants', extra, 'type'],
      `a second evaluated participant (only one agent is evaluated per scenario; "${evaluated[0]}" already is)`,
    );
  }
  for (const p of participants) {
    if (mappingOf(participantMap[p]).endpoint !== undefined && typeOf(p) !== 'evaluated') {
      issue(
        ['participants', p, 'endpoint'],
        'endpoint is only used by the evaluated participant (remove it or set type: evaluated)',
      );
    }
    checkParticipantKeys(p, participantMap[p], issue);
  }
  for (const source of sources.filter((s) => participants.includes(s))) {
    issue(['event_sources', source], `"${source}" is both a participant and an event source (names must be unique)`);
  }

  const unknown = (names: string[], value: string, what: string) =>
    `unknown ${what} "${value}" (known: ${[...new Set(names)].join(', ') || 'none'})`;
  conversationList.forEach((c, index) => {
    if (typeof c.name === 'string') {
      const first = conversationList.findIndex((other) => other.name === c.name);
      if (first !== index)
        issue(
          ['conversations', index, 'name'],
          `duplicate conversation name "${c.name}" (first used at conversations[${first}])`,
        );
      if (sources.includes(c.name))
        issue(
          ['conversations', index, 'name'],
          `"${c.name}" is both a conversation and an event source (names must be unique)`,
        );
    }
    const between = listOf(c.between);
    between.forEach((member, memberIndex) => {
      if (typeof member !== 'string') return;
      if (!participants.includes(member))
        issue(['conversations', index, 'between', memberIndex], unknown(participants, member, 'participant'));
      else if (between.indexOf(member) !== memberIndex)
        issue(['conversations', index, 'between', memberIndex], `participant "${member}" is listed twice`);
    });
    if (typeof c.initiated_by === 'string' && !between.includes(c.initiated_by)) {
      issue(['conversations', index, 'initiated_by'], `"${c.initiated_by}" is not in between (${between.join(', ')})`);
    }
  });
  if (Array.isArray(raw.conversations)) {
    if (conversationList.length === 0) issue(['conversations'], 'expected at least one conversation');
    else if (!conversationList.some((c) => c.initiated_by !== undefined)) {
      issue(['conversations'], 'no conversation has initiated_by (nothing would start the simulation)');
    }
    const agent = evaluated[0];
    if (agent !== undefined && !conversationList.some((c) => listOf(c.between).includes(agent))) {
      issue(
        ['participants', agent],
        `the evaluated participant "${agent}" is in no conversation (add it to a between list)`,
      );
    }
  }
  listOf(raw.observations).forEach((entry, index) => {
    const o = mappingOf(entry);
    if (typeof o.participant === 'string' && !participants.includes(o.participant)) {
      issue(['observations', index, 'participant'], unknown(participants, o.participant, 'participant'));
    }
    listOf(o.observes).forEach((target, targetIndex) => {
      if (typeof target === 'string' && !conversations.includes(target) && !sources.includes(target)) {
        issue(
          ['observations', index, 'observes', targetIndex],
          unknown([...conversations, ...sources], target, 'conversation or event source'),
        );
      }
    });
  });
}

function mappingOf(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
