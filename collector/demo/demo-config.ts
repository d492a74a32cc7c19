/**
 * The configuration `evalon demo` runs with: the shipped receiver, API and Prometheus endpoints
 * (or ephemeral ports), a ledger in a temporary folder, and built-in evaluators bound to the
 * example support agent so that every outcome shows: pass, fail, inconclusive (the example
 * interaction-quality evaluator on the failed interaction) and error (the LLM judge, whose scripted
 * model garbles its verdict on one question: demo-model.ts); an evaluator of whole conversations,
 * each round being one conversation; and a human review of every interaction, answered by the
 * demo's reviewer, with the agreement between the LLM judge and it.
 */
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The example evaluators (examples/evaluators: interaction quality, reply length, repeated
 * question), .ts in a checkout, .js built.
 */
export const EXAMPLE_EVALUATORS_MODULE = fileURLToPath(
  new URL(`../../examples/evaluators/index${extname(new URL(import.meta.url).pathname)}`, import.meta.url),
);

export interface DemoPorts {
  otlp: number;
  api: number;
  prometheus: number;
}

export const DEFAULT_DEMO_PORTS: DemoPorts = { otlp: 4318, api: 4319, prometheus: 9464 };

export function demoConfigYaml(dir: string, ports: DemoPorts): string {
  return `receivers:
  otlp:
    protocols:
      http: { endpoint: 127.0.0.1:${ports.otlp} }
processors:
  interactions: { settle: 500ms, decision_wait: 10s }
  evaluation:
    ledger:
      sqlite: { path: ${JSON.stringify(join(dir, 'ledger.db'))} }
    concurrency: 8
    modules: [${JSON.stringify(EXAMPLE_EVALUATORS_MODULE)}]
    evaluators:
      interaction-quality-evaluator:      # the example module's: inconclusive on a failed interaction
        control-id: QA-1
        agents:
          support-agent: { trigger: interaction, trigger-on-failure: true }
      reply-length:                       # built in: replies of at least min-length characters
        min-length: 58
        agents:
          support-agent: { trigger: interaction, trigger-on-failure: true }
      tool-call-required:                 # the agent must look the order up before answering
        tools: [get_order]
        agent-roles:
          customer-facing: { trigger: interaction }
      contains:                           # the reply talks about the order
        values: [order]
        agents:
          support-agent: { trigger: interaction }
      llm-judge:                          # an LLM judge (the scripted model plays the judge, and
                                          # garbles one verdict: that evaluation is an error)
        rubric: The reply answers the customer's question about their order, politely and precisely.
        pass_threshold: 0.6
        agents:
          support-agent: { trigger: interaction, trigger-on-failure: true }
      criteria-judge:                     # a durable judge: one step (one model call) per criterion
        criteria:
          - name: looked-up
            description: The agent looked the order up before answering
            require_tool_call: get_order
          - name: answered
            description: The reply tells the customer where the order is
        agents:
          support-agent: { trigger: interaction }
      regex:                              # the reply says where the order is
        pattern: (shipped|delivered)
        flags: i
        agents:
          support-agent: { trigger: interaction }
      repeated-question-evaluator:        # the example module's: a whole conversation (a demo round)
        max-asks: 2                       # asks for the order number at most twice a conversation
        agents:
          support-agent: { trigger: conversation }
      human-review/audit:                 # a person's verdict: the demo's reviewer answers every
                                          # review through the API (demo-reviewer.ts)
        review_timeout: 1h
        agents:
          support-agent: { trigger: interaction, sampling-ratio: 1.0 }
    agreement:                            # how often the LLM judge agrees with people
      - between: [llm-judge, human-review/audit]
exporters:
  prometheus: { endpoint: 127.0.0.1:${ports.prometheus} }
extensions:
  api: { endpoint: 127.0.0.1:${ports.api} }
service:
  extensions: [api]
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
    metrics: { exporters: [prometheus] }
`;
}
