/**
 * Every span, resource and metric attribute name Evalon writes or reads, in one place for the
 * library and the collector alike. Grouped by who defines the name: the OpenTelemetry semantic
 * conventions (GenAI and general), Evalon itself, and each instrumentation dialect the
 * interactions processor reads. Event, scope and metric names are in `telemetry-names.ts`.
 *
 * Flattened lists (`llm.input_messages.<i>.message.role`, `gen_ai.prompt.<i>.content`) are named
 * here by their prefix; the keys inside one entry belong to the dialect reader that parses them.
 */

// ---------------------------------------------------------------------------------------------
// OpenTelemetry GenAI semantic conventions (`gen_ai.*`)
// ---------------------------------------------------------------------------------------------

/** `invoke_agent`, `chat`, `text_completion`, `generate_content`, `execute_tool`, … */
export const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
/** The model provider (`anthropic`, `openai`); replaces `gen_ai.system`. */
export const GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
/** The agent's id: the key evaluator bindings use. */
export const GEN_AI_AGENT_ID = 'gen_ai.agent.id';
export const GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
export const GEN_AI_AGENT_DESCRIPTION = 'gen_ai.agent.description';
export const GEN_AI_AGENT_VERSION = 'gen_ai.agent.version';
/** The conversation (session, thread) an invocation belongs to. */
export const GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';
export const GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const GEN_AI_REQUEST_MAX_TOKENS = 'gen_ai.request.max_tokens';
export const GEN_AI_REQUEST_TEMPERATURE = 'gen_ai.request.temperature';
export const GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
export const GEN_AI_RESPONSE_ID = 'gen_ai.response.id';
/** One finish reason per choice (a string array). */
export const GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const GEN_AI_OUTPUT_TYPE = 'gen_ai.output.type';
/** Messages as JSON text or structured values: `[{role, parts: [...], name?, finish_reason?}]`. */
export const GEN_AI_INPUT_MESSAGES = 'gen_ai.input.messages';
export const GEN_AI_OUTPUT_MESSAGES = 'gen_ai.output.messages';
export const GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const GEN_AI_TOOL_TYPE = 'gen_ai.tool.type';
export const GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
export const GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
export const GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';
/** `input` or `output`: the attribute that splits `gen_ai.client.token.usage`. */
export const GEN_AI_TOKEN_TYPE = 'gen_ai.token.type';

/** The `gen_ai.evaluation.result` event's attributes. */
export const GEN_AI_EVALUATION_NAME = 'gen_ai.evaluation.name';
export const GEN_AI_EVALUATION_SCORE_VALUE = 'gen_ai.evaluation.score.value';
export const GEN_AI_EVALUATION_SCORE_LABEL = 'gen_ai.evaluation.score.label';
export const GEN_AI_EVALUATION_EXPLANATION = 'gen_ai.evaluation.explanation';
/** Provenance on the event and the evaluation span: the entry's version and the kind of evaluator. */
export const GEN_AI_EVALUATION_EVALUATOR_VERSION = 'gen_ai.evaluation.evaluator.version';
/** `llm_judge`, `deterministic`, `human` or `custom`. */
export const GEN_AI_EVALUATION_EVALUATOR_TYPE = 'gen_ai.evaluation.evaluator.type';

/** Older GenAI conventions, still written by many instrumentations and read as a fallback. */
export const GEN_AI_SYSTEM = 'gen_ai.system';
export const GEN_AI_USAGE_PROMPT_TOKENS = 'gen_ai.usage.prompt_tokens';
export const GEN_AI_USAGE_COMPLETION_TOKENS = 'gen_ai.usage.completion_tokens';
/** Flattened lists: `gen_ai.prompt.<i>.{role,content,tool_call_id,tool_calls.<j>.*}`. */
export const GEN_AI_PROMPT = 'gen_ai.prompt';
/** Flattened lists: `gen_ai.completion.<i>.{role,content,finish_reason,tool_calls.<j>.*}`. */
export const GEN_AI_COMPLETION = 'gen_ai.completion';

// ---------------------------------------------------------------------------------------------
// OpenTelemetry general semantic conventions
// ---------------------------------------------------------------------------------------------

export const SERVICE_NAME = 'service.name';
export const SERVICE_VERSION = 'service.version';
export const DEPLOYMENT_ENVIRONMENT_NAME = 'deployment.environment.name';
/** A low-cardinality failure class; `_OTHER` when none is known. */
export const ERROR_TYPE = 'error.type';
/** Attributes of an `exception` span event. */
export const EXCEPTION_MESSAGE = 'exception.message';
export const EXCEPTION_TYPE = 'exception.type';
export const HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code';

// ---------------------------------------------------------------------------------------------
// Evalon's own (`evalon.*`)
// ---------------------------------------------------------------------------------------------

/** The prefix of Evalon's names, and of the application annotations copied into a record. */
export const EVALON_PREFIX = 'evalon.';

/**
 * The loop-safety mark: set on an evaluation's own spans (a judge's model calls, an evaluation's
 * span) and on the resource of an agent run inside an evaluation. An interaction that carries it,
 * or is nested in one that does, is recorded but never evaluated.
 */
export const EVALUATION_ID_ATTRIBUTE = 'evalon.evaluation.id';
/** The agent's roles, which evaluators can bind to: a string array (a single string is one role). */
export const EVALON_AGENT_ROLES = 'evalon.agent.roles';
/** Set when captured message content was cut to the size limit. */
export const EVALON_CONTENT_TRUNCATED = 'evalon.content.truncated';

/** On evaluation spans, `gen_ai.evaluation.result` events and judge-call spans. */
export const EVALON_EVALUATOR_ID = 'evalon.evaluator.id';
export const EVALON_EVALUATOR_VERSION = 'evalon.evaluator.version';
export const EVALON_EVALUATION_ATTEMPTS = 'evalon.evaluation.attempts';
/** `pass`, `fail`, `inconclusive` or `error`. */
export const EVALON_EVALUATION_OUTCOME = 'evalon.evaluation.outcome';
export const EVALON_INTERACTION_ID = 'evalon.interaction.id';
/** The evaluator entry's `control-id`, when it sets one. */
export const EVALON_CONTROL_ID = 'evalon.control.id';
/** Who gave a human verdict (the `human-review` evaluator's reviewer). */
export const EVALON_REVIEWER = 'evalon.reviewer';
/** What an evaluation judged: `interaction` or `conversation` (verdict events and evaluation spans). */
export const EVALON_EVALUATION_SUBJECT = 'evalon.evaluation.subject';
/**
 * On an agent invocation span: `true` when this turn ends its conversation (`invokeAgent({
 * endConversation: true })` sets it). The collector evaluates the conversation once it is recorded.
 */
export const EVALON_CONVERSATION_ENDED = 'evalon.conversation.ended';
/** On a conversation's verdict: which revision of the conversation was judged (1, 2, …). */
export const EVALON_CONVERSATION_REVISION = 'evalon.conversation.revision';
/** `true` on the verdicts of an evaluator entry marked `shadow: true` (left out of pass rates). */
export const EVALON_EVALUATION_SHADOW = 'evalon.evaluation.shadow';
/** A stable hash of the evaluator entry's effective properties for the evaluated subject. */
export const EVALON_EVALUATION_CONFIG_HASH = 'evalon.evaluation.config_hash';

/**
 * On a judge's evaluation (verdict or failed outcome): characters of the rendered transcript left
 * out of what the judge read to fit its input budget (`max_input_tokens`); 0 when it read it whole.
 */
export const EVALON_JUDGE_TRANSCRIPT_OMITTED_CHARS = 'evalon.judge.transcript.omitted_chars';

/** A judge-call span: how many HTTP attempts the call took. */
export const EVALON_MODEL_ATTEMPTS = 'evalon.model.attempts';
/** The attributes of one `evalon.model.retry` event. */
export const EVALON_MODEL_ATTEMPT = 'evalon.model.attempt';
export const EVALON_MODEL_RETRY_DELAY_MS = 'evalon.model.retry.delay_ms';

/** A simulated agent turn: the run, scenario, trial and conversation it belongs to. */
export const EVALON_SIMULATION_RUN_ID = 'evalon.simulation.run_id';
export const EVALON_SIMULATION_SCENARIO = 'evalon.simulation.scenario';
export const EVALON_SIMULATION_TRIAL = 'evalon.simulation.trial';
export const EVALON_SIMULATION_RESPOND_IN = 'evalon.simulation.respond_in';

/**
 * The attributes of Evalon's metrics (low-cardinality by design: evaluator ids come from
 * configuration, agent ids are capped, outcomes are a fixed set).
 */
export const METRIC_EVALUATOR = 'evaluator';
export const METRIC_AGENT = 'agent';
export const METRIC_OUTCOME = 'outcome';
/** The agreement gauge's pair of evaluator entries, and which statistic. */
export const METRIC_AGREEMENT_A = 'a';
export const METRIC_AGREEMENT_B = 'b';
export const METRIC_STATISTIC = 'statistic';
/** `true` or `false`: whether a recorded interaction failed. */
export const METRIC_FAILED = 'failed';
/** `interaction` or `conversation`: what an evaluation judged. */
export const METRIC_SUBJECT = 'subject';
/** `true` or `false`: whether the evaluator entry is a shadow. */
export const METRIC_SHADOW = 'shadow';
/**
 * Why something was left undone: why the receiver refused spans (`auth`, `too_large`, `bad_request`,
 * `throttled`), why an evaluation was skipped (`budget`).
 */
export const METRIC_REASON = 'reason';
/** A judge model (the circuit breaker's gauge). */
export const METRIC_MODEL = 'model';
/** The OTLP transport spans came over: `http` or `grpc`. */
export const METRIC_PROTOCOL = 'protocol';
/** An exporter's id as configured (`otlphttp`, `otlphttp/tempo`). */
export const METRIC_EXPORTER = 'exporter';
/** The signal an export carried: `traces`, `logs` or `metrics`. */
export const METRIC_SIGNAL = 'signal';
/** What retention pruned: `interactions`, `late_spans`, `conversations`, `evaluations`, `reviews`. */
export const METRIC_KIND = 'kind';
/** `used` or `free`: the ledger's bytes holding data, and those it holds without using them. */
export const METRIC_STATE = 'state';

// ---------------------------------------------------------------------------------------------
// OpenInference (Arize): `openinference.span.kind` AGENT / LLM / TOOL / CHAIN …
// ---------------------------------------------------------------------------------------------

export const OPENINFERENCE_SPAN_KIND = 'openinference.span.kind';
export const AGENT_NAME = 'agent.name';
export const SESSION_ID = 'session.id';
export const USER_ID = 'user.id';
/** Plain values: an AGENT span's question and answer, a TOOL span's arguments and result. */
export const INPUT_VALUE = 'input.value';
export const OUTPUT_VALUE = 'output.value';
/** Flattened lists: `llm.input_messages.<i>.message.{role,content,name,tool_call_id,tool_calls,contents}`. */
export const LLM_INPUT_MESSAGES = 'llm.input_messages';
export const LLM_OUTPUT_MESSAGES = 'llm.output_messages';
/** Older flattened lists: `llm.prompts.<i>.prompt.text`, `llm.choices.<i>.completion.text`. */
export const LLM_PROMPTS = 'llm.prompts';
export const LLM_CHOICES = 'llm.choices';
export const LLM_FINISH_REASON = 'llm.finish_reason';
export const LLM_TOKEN_COUNT_PROMPT = 'llm.token_count.prompt';
export const LLM_TOKEN_COUNT_COMPLETION = 'llm.token_count.completion';
export const LLM_MODEL_NAME = 'llm.model_name';
export const LLM_REQUEST_MODEL_NAME = 'llm.request.model_name';
export const LLM_RESPONSE_MODEL_NAME = 'llm.response.model_name';
export const LLM_PROVIDER = 'llm.provider';
export const LLM_SYSTEM = 'llm.system';
export const TOOL_NAME = 'tool.name';
export const TOOL_ID = 'tool.id';
/** A tool call: on a TOOL span, and as the keys of `message.tool_calls.<j>` entries. */
export const TOOL_CALL_ID = 'tool_call.id';
export const TOOL_CALL_FUNCTION_NAME = 'tool_call.function.name';
export const TOOL_CALL_FUNCTION_ARGUMENTS = 'tool_call.function.arguments';

// ---------------------------------------------------------------------------------------------
// OpenLLMetry / Traceloop: `traceloop.span.kind` agent / tool / workflow / task
// ---------------------------------------------------------------------------------------------

export const TRACELOOP_SPAN_KIND = 'traceloop.span.kind';
export const TRACELOOP_ENTITY_NAME = 'traceloop.entity.name';
/** JSON; the decorators write an input as `{"args": [...], "kwargs": {...}}`. */
export const TRACELOOP_ENTITY_INPUT = 'traceloop.entity.input';
export const TRACELOOP_ENTITY_OUTPUT = 'traceloop.entity.output';
export const TRACELOOP_WORKFLOW_NAME = 'traceloop.workflow.name';
export const TRACELOOP_ASSOCIATION_PROPERTIES_SESSION_ID = 'traceloop.association.properties.session_id';
/** `chat` or `completion` on OpenLLMetry's LLM spans, which carry no span kind. */
export const LLM_REQUEST_TYPE = 'llm.request.type';

// ---------------------------------------------------------------------------------------------
// Vercel AI SDK (`ai.*`); token names `inputTokens` / `outputTokens` (v5+), `promptTokens` /
// `completionTokens` (v4), results under `ai.result.*` up to v3
// ---------------------------------------------------------------------------------------------

/** The operation a span is (`ai.generateText`, `ai.generateText.doGenerate`, `ai.toolCall`, …). */
export const AI_OPERATION_ID = 'ai.operationId';
/** The `functionId` of the call's telemetry settings: the agent's name. */
export const AI_TELEMETRY_FUNCTION_ID = 'ai.telemetry.functionId';
export const AI_TELEMETRY_METADATA_SESSION_ID = 'ai.telemetry.metadata.sessionId';
export const AI_MODEL_ID = 'ai.model.id';
export const AI_MODEL_PROVIDER = 'ai.model.provider';
/** A top-level call's `{system?, prompt?, messages?}`. */
export const AI_PROMPT = 'ai.prompt';
/** A model call step's messages. */
export const AI_PROMPT_MESSAGES = 'ai.prompt.messages';
export const AI_RESPONSE_TEXT = 'ai.response.text';
export const AI_RESPONSE_OBJECT = 'ai.response.object';
export const AI_RESPONSE_REASONING = 'ai.response.reasoning';
export const AI_RESPONSE_TOOL_CALLS = 'ai.response.toolCalls';
export const AI_RESPONSE_FINISH_REASON = 'ai.response.finishReason';
export const AI_RESPONSE_MODEL = 'ai.response.model';
export const AI_RESULT_TEXT = 'ai.result.text';
export const AI_RESULT_OBJECT = 'ai.result.object';
export const AI_RESULT_TOOL_CALLS = 'ai.result.toolCalls';
export const AI_FINISH_REASON = 'ai.finishReason';
export const AI_USAGE_INPUT_TOKENS = 'ai.usage.inputTokens';
export const AI_USAGE_OUTPUT_TOKENS = 'ai.usage.outputTokens';
export const AI_USAGE_PROMPT_TOKENS = 'ai.usage.promptTokens';
export const AI_USAGE_COMPLETION_TOKENS = 'ai.usage.completionTokens';
export const AI_TOOL_CALL_NAME = 'ai.toolCall.name';
export const AI_TOOL_CALL_ID = 'ai.toolCall.id';
/** Tool arguments and result: `args` / `result` up to v4, `input` / `output` from v5. */
export const AI_TOOL_CALL_ARGS = 'ai.toolCall.args';
export const AI_TOOL_CALL_INPUT = 'ai.toolCall.input';
export const AI_TOOL_CALL_RESULT = 'ai.toolCall.result';
export const AI_TOOL_CALL_OUTPUT = 'ai.toolCall.output';

// ---------------------------------------------------------------------------------------------
// The Anthropic TypeScript SDK's own tracing (GenAI semconv plus these)
// ---------------------------------------------------------------------------------------------

export const ANTHROPIC_MESSAGE_STOP_REASON = 'anthropic.message.stop_reason';
/** A tool span's result: a JSON list of content blocks. */
export const ANTHROPIC_TOOL_RESULT_CONTENT = 'anthropic.tool_result.content';
