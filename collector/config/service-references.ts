/**
 * The graph checks the OpenTelemetry Collector makes: every name a pipeline or
 * `service.extensions` uses is a configured component, every exporter is used, each exporter
 * carries a signal it supports. They read the configuration as written (after merging and
 * expansion), tolerating any shape, so they run even when other keys have problems.
 */
import type { Finding } from '../../src/config/config-problem.ts';
import { suggestionHint } from '../../src/config/key-suggestions.ts';
import { isRecord, subjectOf, type YamlPath } from '../../src/config/yaml-path.ts';
import { COMPONENTS, type ComponentSection } from '../components.ts';
import { componentTypeOf } from './component-id.ts';

type Kind = 'receivers' | 'processors' | 'exporters';
const SINGULAR: Record<Kind | 'extensions', string> = {
  receivers: 'receiver',
  processors: 'processor',
  exporters: 'exporter',
  extensions: 'extension',
};
/** Which signals each exporter can send. */
const EXPORTER_SIGNALS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  Object.values(COMPONENTS.exporters).map((factory) => [factory.type, factory.signals]),
);
/** The component types there are; a key of another type is reported by the schema, not here. */
const componentTypes = (section: ComponentSection): readonly string[] => Object.keys(COMPONENTS[section]);
/** Whether `key` is an id (`type` or `type/name`) of a known type of `section`. */
const isKnownId = (section: ComponentSection, key: string): boolean =>
  componentTypes(section).includes(componentTypeOf(key) ?? '');
const PIPELINE_KINDS: Readonly<Record<string, readonly Kind[]>> = {
  traces: ['receivers', 'processors', 'exporters'],
  logs: ['exporters'],
  metrics: ['exporters'],
};

export function checkServiceReferences(config: Record<string, unknown>): { problems: Finding[]; warnings: Finding[] } {
  const problems: Finding[] = [];
  const warnings: Finding[] = [];
  const configured = (kind: Kind | 'extensions') => Object.keys(asRecord(config[kind]));
  const service = asRecord(config.service);
  const pipelines = asRecord(service.pipelines);
  const used = { receivers: new Set<string>(), processors: new Set<string>(), exporters: new Set<string>() };

  const checkNames = (
    path: YamlPath,
    kind: Kind | 'extensions',
    value: unknown,
    accept: (name: string, at: YamlPath) => void,
  ) => {
    const seen = new Set<string>();
    const defined = configured(kind);
    asList(value).forEach((name, index) => {
      if (typeof name !== 'string') return; // the schema reports it
      const at = [...path, index];
      if (seen.has(name))
        problems.push({ at, message: `${subjectOf(at)} lists ${JSON.stringify(name)} a second time` });
      seen.add(name);
      if (!defined.includes(name)) {
        const hint =
          defined.length > 0
            ? suggestionHint(name, defined, 'configured')
            : ` (no ${kind} are configured; define it under ${kind}::${name})`;
        problems.push({
          at,
          message:
            `${subjectOf(at)} references ${SINGULAR[kind]} ` +
            `${JSON.stringify(name)}, which is not configured${hint}`,
        });
        return;
      }
      accept(name, at);
    });
  };

  for (const [signal, kinds] of Object.entries(PIPELINE_KINDS)) {
    if (!(signal in pipelines)) continue;
    const pipeline = asRecord(pipelines[signal]);
    const path = ['service', 'pipelines', signal];
    for (const kind of kinds) {
      checkNames([...path, kind], kind, pipeline[kind], (name, at) => {
        used[kind].add(name);
        const signals = EXPORTER_SIGNALS[componentTypeOf(name) ?? ''];
        if (kind === 'exporters' && signals && !signals.includes(signal)) {
          problems.push({ at, message: `${subjectOf(at)} names ${name}, which exports only ${signals.join(', ')}` });
        }
      });
    }
  }

  const traces = isRecord(pipelines.traces) ? pipelines.traces : undefined;
  if (traces) checkTracesPipeline(traces, problems, warnings);
  else
    warnings.push({
      at: ['service', 'pipelines'],
      message: 'pipelines has no traces pipeline: the collector receives no spans',
    });

  const ofKnownType = (kind: Kind) => configured(kind).filter((name) => isKnownId(kind, name));
  for (const exporter of ofKnownType('exporters')) {
    if (!used.exporters.has(exporter)) {
      problems.push({
        at: ['exporters', exporter],
        message:
          `${exporter} is not used by any pipeline (add it to the exporters of a pipeline under ` +
          'service::pipelines, or remove it)',
      });
    }
  }
  for (const receiver of ofKnownType('receivers')) {
    if (!used.receivers.has(receiver)) {
      warnings.push({
        at: ['receivers', receiver],
        message: `${receiver} is not used by any pipeline (add it to service::pipelines::traces::receivers)`,
      });
    }
  }

  const started = new Set<string>();
  checkNames(['service', 'extensions'], 'extensions', service.extensions, (name) => started.add(name));
  for (const extension of configured('extensions').filter((name) => componentTypes('extensions').includes(name))) {
    if (!started.has(extension)) {
      warnings.push({
        at: ['extensions', extension],
        message: `${extension} is configured but not started (add it to service::extensions)`,
      });
    }
  }

  const evaluators = asRecord(asRecord(asRecord(config.processors).evaluation).evaluators);
  if (Object.keys(evaluators).length > 0 && !asList(traces?.processors).includes('evaluation')) {
    warnings.push({
      at: ['processors', 'evaluation', 'evaluators'],
      message:
        'evaluators are configured, but the traces pipeline does not run the evaluation processor (add evaluation to ' +
        'service::pipelines::traces::processors)',
    });
  }
  return { problems, warnings };
}

function checkTracesPipeline(traces: Record<string, unknown>, problems: Finding[], warnings: Finding[]): void {
  const path = ['service', 'pipelines', 'traces'];
  const processors = asList(traces.processors);
  const interactions = processors.indexOf('interactions');
  const evaluation = processors.indexOf('evaluation');
  if (evaluation >= 0 && interactions < 0) {
    problems.push({
      at: [...path, 'processors'],
      message:
        'processors lists evaluation without interactions (evaluation judges the interaction records that ' +
        'interactions builds)',
    });
  } else if (evaluation >= 0 && interactions > evaluation) {
    problems.push({
      at: [...path, 'processors'],
      message:
        'processors must list interactions before evaluation (spans become interactions before they are evaluated)',
    });
  }
  if (
    traces.receivers === undefined ||
    traces.receivers === null ||
    (Array.isArray(traces.receivers) && traces.receivers.length === 0)
  ) {
    warnings.push({
      at: [...path, 'receivers'],
      message: 'receivers is empty: no spans reach the traces pipeline (add otlp)',
    });
  }
  if (traces.forward === true && asList(traces.exporters).length === 0) {
    warnings.push({ at: [...path, 'forward'], message: 'forward has no effect: the traces pipeline has no exporters' });
  }
}

function asRecord(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
