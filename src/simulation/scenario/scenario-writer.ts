/**
 * Writes a scenario as the YAML a user reads and edits: the loader's inverse. Keys come in a
 * fixed order (the order of docs/simulation.md), values equal to their default are left out, short
 * lists and tool arguments are written inline, and an optional header of comment lines goes on top.
 *
 * Loading what it writes gives the same scenario, and writing that again gives the same bytes; the
 * `yaml` package re-saving the file (comments included) leaves it unchanged too.
 */
import { isDeepStrictEqual } from 'node:util';
import { Document, isCollection, parseDocument, type ToStringOptions } from 'yaml';
import type { Criterion } from '../../judge/criterion.ts';
import { DEFAULT_CRITERION_WEIGHT } from '../../judge/criterion.ts';
import { compactJson, type JsonObject, type JsonValue } from '../../judge/json-value.ts';
import {
  DEFAULT_MAX_TURNS,
  type ContextExpectation,
  type EventSourceSpec,
  type Participant,
  type Scenario,
  type ToolSpec,
} from './scenario.ts';
import { DEFAULT_TOOL_INPUT_SCHEMA } from './tool-schema.ts';

export interface FormatScenarioOptions {
  /** Comment lines for the top of the file, without their `#`. */
  header?: readonly string[];
}

/** Longest compact JSON of tool arguments that is still written on one line. */
const INLINE_ARGUMENTS_MAX = 80;

/** No folding of long lines (a message stays one line) and `[a, b]` without inner padding. */
const YAML_OPTIONS: ToStringOptions = { lineWidth: 0, flowCollectionPadding: false };

type Path = Array<string | number>;

export function formatScenario(scenario: Scenario, options: FormatScenarioOptions = {}): string {
  const inline: Path[] = [];
  const document = new Document(scenarioValue(scenario, inline));
  for (const path of inline) {
    const node = document.getIn(path, true);
    if (isCollection(node)) node.flow = true;
  }
  if (options.header && options.header.length > 0)
    document.commentBefore = options.header.map((line) => (line === '' ? '' : ` ${line}`)).join('\n');
  return document.toString(YAML_OPTIONS);
}

/** The comment lines at the top of a scenario file (what `header` wrote), without their `#`. */
export function scenarioHeader(text: string): string[] {
  const comment = parseDocument(text).commentBefore;
  if (!comment) return [];
  return comment.split('\n').map((line) => (line.startsWith(' ') ? line.slice(1) : line));
}

function scenarioValue(scenario: Scenario, inline: Path[]): JsonObject {
  const value: JsonObject = { name: scenario.name, description: scenario.description };
  value.participants = Object.fromEntries(
    scenario.participants.map((participant) => [
      participant.name,
      participantValue(participant, ['participants', participant.name], inline),
    ]),
  );
  value.conversations = scenario.conversations.map((conversation, index) => {
    inline.push(['conversations', index, 'between']);
    return {
      name: conversation.name,
      between: conversation.between,
      ...(conversation.initiatedBy !== undefined ? { initiated_by: conversation.initiatedBy } : {}),
    };
  });
  if (scenario.observations.length > 0) {
    value.observations = scenario.observations.map((observation, index) => {
      inline.push(['observations', index, 'observes']);
      return { participant: observation.participant, observes: observation.observes };
    });
  }
  if (scenario.eventSources.length > 0)
    value.event_sources = Object.fromEntries(scenario.eventSources.map((source) => [source.name, sourceValue(source)]));
  if (Object.keys(scenario.context).length > 0) value.context = scenario.context;
  if (scenario.maxTurns !== DEFAULT_MAX_TURNS) value.max_turns = scenario.maxTurns;
  if (scenario.evalPromptTemplate !== undefined) value.eval_prompt_template = scenario.evalPromptTemplate;
  if (scenario.evalCriteria.length > 0)
    value.eval_criteria = scenario.evalCriteria.map((criterion, index) =>
      criterionValue(criterion, ['eval_criteria', index], inline),
    );
  if (scenario.expectContext.length > 0)
    value.expect_context = scenario.expectContext.map((expectation, index) =>
      expectationValue(expectation, ['expect_context', index], inline),
    );
  return value;
}

function participantValue(participant: Participant, at: Path, inline: Path[]): JsonObject {
  const value: JsonObject = { type: participant.type };
  if (participant.persona !== '') value.persona = participant.persona;
  if (participant.goal !== '') value.goal = participant.goal;
  if (participant.template !== undefined) value.template = participant.template;
  if (participant.responseSpeed !== undefined) value.response_speed = participant.responseSpeed;
  if (participant.messages !== undefined) value.messages = participant.messages;
  if (participant.endpoint !== undefined) value.endpoint = participant.endpoint;
  if (participant.model !== undefined) value.model = participant.model;
  if (participant.systemPrompt !== undefined) value.system_prompt = participant.systemPrompt;
  if (participant.tools !== undefined)
    value.tools = participant.tools.map((tool, index) => toolValue(tool, [...at, 'tools', index], inline));
  return value;
}

function toolValue(tool: ToolSpec, at: Path, inline: Path[]): JsonObject {
  if (tool.source === 'builtin') return { name: tool.name, source: 'builtin' };
  const value: JsonObject = { name: tool.name, source: 'recorded' };
  if (tool.description !== '') value.description = tool.description;
  if (!isDeepStrictEqual(tool.inputSchema, DEFAULT_TOOL_INPUT_SCHEMA)) value.input_schema = tool.inputSchema;
  value.recordings = tool.recordings.map((recording, index): JsonObject => {
    if (compactJson(recording.arguments).length <= INLINE_ARGUMENTS_MAX)
      inline.push([...at, 'recordings', index, 'arguments']);
    return 'error' in recording
      ? { arguments: recording.arguments, error: recording.error }
      : { arguments: recording.arguments, result: recording.result };
  });
  return value;
}

function sourceValue(source: EventSourceSpec): JsonObject {
  const value: JsonObject = { type: source.type };
  if (source.description !== '') value.description = source.description;
  if (source.emits.length > 0)
    value.emits = source.emits.map(
      (emitted): JsonObject =>
        Object.keys(emitted.schema).length > 0
          ? { event: emitted.event, schema: emitted.schema }
          : { event: emitted.event },
    );
  if (source.className !== undefined) value.class_name = source.className;
  return value;
}

/** A plain binary criterion as its string; anything else as a mapping of what differs from the defaults. */
function criterionValue(criterion: Criterion, at: Path, inline: Path[]): JsonValue {
  const plain =
    criterion.description === criterion.name &&
    criterion.criterionType === 'binary' &&
    criterion.requireToolCall === false &&
    criterion.weight === DEFAULT_CRITERION_WEIGHT &&
    criterion.passThreshold === undefined;
  if (plain) return criterion.name;
  const value: JsonObject = { name: criterion.name };
  if (criterion.description !== criterion.name) value.description = criterion.description;
  if (criterion.criterionType !== 'binary') value.criterion_type = criterion.criterionType;
  if (criterion.requireToolCall !== false) {
    value.require_tool_call = criterion.requireToolCall;
    if (Array.isArray(criterion.requireToolCall)) inline.push([...at, 'require_tool_call']);
  }
  if (criterion.weight !== DEFAULT_CRITERION_WEIGHT) value.weight = criterion.weight;
  if (criterion.passThreshold !== undefined) value.pass_threshold = criterion.passThreshold;
  return value;
}

function expectationValue(expectation: ContextExpectation, at: Path, inline: Path[]): JsonObject {
  const dotted = expectation.path.every((key) => key !== '' && !key.includes('.'));
  const value: JsonObject = {};
  if (expectation.name !== `context ${expectation.path.join('.')}`) value.name = expectation.name;
  if (dotted) value.path = expectation.path.join('.');
  else {
    value.path = expectation.path;
    inline.push([...at, 'path']);
  }
  if (expectation.equals !== undefined) value.equals = expectation.equals;
  if (expectation.includes !== undefined) value.includes = expectation.includes;
  if (expectation.absent !== undefined) value.absent = expectation.absent;
  if (expectation.weight !== DEFAULT_CRITERION_WEIGHT) value.weight = expectation.weight;
  return value;
}
