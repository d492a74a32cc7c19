/**
 * `evalon/instrumentation`: drop-in OpenTelemetry instrumentation for agents.
 *
 * ```ts
 * import { register, invokeAgent } from 'evalon/instrumentation';
 * register({ captureContent: true });
 * const { result, interactionId } = await invokeAgent({ id: 'support-agent', input: question }, () =>
 *   answer(question),
 * );
 * ```
 */
export { register, type Telemetry } from './register-telemetry.ts';
export { invokeAgent, type AgentInvocation, type AgentReply, type InvokeAgentOptions } from './invoke-agent.ts';
export type { RegisterOptions, OtlpProtocol } from './telemetry-options.ts';
export type { ExportStats } from './bounded-span-processor.ts';
export type { AgentInput, AgentMessage, AgentMessagePart, AgentOutput } from './agent-messages.ts';
