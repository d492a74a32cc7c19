/**
 * The normalised collector configuration: what `loadConfig` returns once `otel-config.yaml` (and
 * any override files) have been merged, expanded and validated. Durations are milliseconds, sizes
 * are bytes, endpoints are `{ host, port }`, relative paths are absolute. Optional fields are
 * absent (not `undefined`-valued) when the YAML did not set them.
 *
 * Binding semantics (precedence, effective settings, `config()`) belong to the evaluation runtime;
 * this file only carries what was written, in a checked shape, plus the `raw` maps it needs.
 */

/** A listening address (`host:port`). Port 0 asks the OS for a free port. */
export interface HostPort {
  host: string;
  port: number;
}

/** `receivers.otlp.protocols.http`. */
export interface OtlpHttpReceiverConfig extends HostPort {
  /** `max_request_body_size`: larger requests are answered 413. */
  maxRequestBodyBytes: number;
  /** `auth.bearer_token`: when set, requests must carry `Authorization: Bearer <token>`. */
  bearerToken?: string;
}

/** `receivers.otlp.protocols.grpc`: present only when the `grpc` key is written. */
export interface OtlpGrpcReceiverConfig extends HostPort {
  /** `max_recv_msg_size_mib`, in bytes: larger messages are answered RESOURCE_EXHAUSTED. */
  maxRecvMsgBytes: number;
  /** `auth.bearer_token`: when set, calls must carry `authorization: Bearer <token>` metadata. */
  bearerToken?: string;
}

export interface ReceiversConfig {
  otlp?: { http: OtlpHttpReceiverConfig; grpc?: OtlpGrpcReceiverConfig };
}

/** `processors.interactions`: spans -> interaction records (spec §2.4). */
export interface InteractionsProcessorConfig {
  /** `settle`: quiet time after the last span of an interaction's subtree before it completes. */
  settleMs: number;
  /** `decision_wait`: after the last span of a trace, complete what is left as `timeout`. */
  decisionWaitMs: number;
  /** `max_pending_traces`: bound on traces held in memory; beyond it the oldest are evicted. */
  maxPendingTraces: number;
}

export type LedgerConfig =
  | { kind: 'sqlite'; path: string }
  | {
      kind: 'postgres';
      url: string;
      /** `replica_id`: this collector's id among replicas sharing the ledger (default `EVALON_REPLICA_ID`, else the host name). */
      replicaId?: string;
    };

/** One binding under `agents` or `agent-roles` of an evaluator entry. */
export interface BindingConfig {
  /** The only trigger there is; a binding that does not write it gets it. */
  trigger: 'interaction';
  enabled?: boolean;
  /** `sampling-ratio`, in [0, 1]. */
  samplingRatio?: number;
  /** `trigger-on-failure`. */
  triggerOnFailure?: boolean;
  /** Every key that is not reserved: the evaluator's own properties, as written. */
  properties: Record<string, unknown>;
  /** The binding as written (reserved keys included), for `config()`. */
  raw: Record<string, unknown>;
}

/** One entry under `processors.evaluation.evaluators`, keyed by evaluator id. */
export interface EvaluatorEntryConfig {
  enabled?: boolean;
  /** `control-id`: recorded on every evaluation this evaluator runs. */
  controlId?: string;
  /** Every key that is not reserved, as written. */
  properties: Record<string, unknown>;
  /** Bindings keyed by agent id. */
  agents: Record<string, BindingConfig>;
  /** Bindings keyed by agent role; `*` binds every agent that has any role. */
  agentRoles: Record<string, BindingConfig>;
  /** The entry as written, reserved keys included, without `agents` and `agent-roles`. */
  raw: Record<string, unknown>;
}

export interface EvaluationDefaultsConfig {
  /** `defaults.evaluator`: defaults of evaluator entries. */
  evaluator: { enabled: boolean };
  /** `defaults.agent`: defaults of bindings. */
  agent: { samplingRatio: number; triggerOnFailure: boolean };
}

/** `processors.evaluation`: bindings -> evaluations. */
export interface EvaluationProcessorConfig {
  ledger: LedgerConfig;
  /** Evaluations running at once in this process. */
  concurrency: number;
  /** How long an evaluation is run again while its model is unavailable, before it is recorded as failed. */
  modelUnavailableRetryForMs: number;
  /**
   * With the PostgreSQL ledger: how long a replica's claim (lease) on an evaluation it started
   * lasts unless renewed; a replica that dies leaves its work to others after this long.
   */
  leaseDurationMs: number;
  /** Files that register evaluators, as absolute paths. */
  modules: string[];
  defaults: EvaluationDefaultsConfig;
  evaluators: Record<string, EvaluatorEntryConfig>;
}

export interface ProcessorsConfig {
  interactions: InteractionsProcessorConfig;
  evaluation: EvaluationProcessorConfig;
}

/** `exporters.otlphttp`: verdict logs, evaluation spans, metrics over OTLP/HTTP. */
export interface OtlpHttpExporterConfig {
  /** Base URL without a trailing slash; the signal paths (`/v1/traces` …) are appended. */
  endpoint: string;
  headers: Record<string, string>;
  compression: 'gzip' | 'none';
  timeoutMs: number;
}

export interface ExportersConfig {
  otlphttp?: OtlpHttpExporterConfig;
  /** Prometheus scrape endpoint. */
  prometheus?: HostPort;
}

export interface ExtensionsConfig {
  /** Health and ledger queries over HTTP. */
  api?: HostPort;
}

export interface TracesPipelineConfig {
  receivers: string[];
  processors: string[];
  exporters: string[];
  /** Also send the received spans to the exporters, not only the evaluation spans. */
  forward: boolean;
}

export interface ServiceConfig {
  /** Extensions to start. */
  extensions: string[];
  pipelines: {
    traces?: TracesPipelineConfig;
    logs?: { exporters: string[] };
    metrics?: { exporters: string[] };
  };
}

export interface EvalonConfig {
  receivers: ReceiversConfig;
  processors: ProcessorsConfig;
  exporters: ExportersConfig;
  extensions: ExtensionsConfig;
  service: ServiceConfig;
}
