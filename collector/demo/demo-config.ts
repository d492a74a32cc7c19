/**
 * The configuration `evalon demo` runs with: the shipped receiver, API and Prometheus endpoints
 * (or ephemeral ports), a ledger in a temporary folder, and built-in evaluators bound to the
 * example support agent so that some interactions pass and some fail.
 */
import { join } from 'node:path';

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
    evaluators:
      reply-length:                       # the seed's example: replies of at least min-length characters
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
