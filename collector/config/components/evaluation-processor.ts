/**
 * The evaluation processor's configuration is in `collector/processor/evaluation/config.ts`; this
 * re-export keeps the modules that import its defaults from here working.
 */
export {
  DEFAULT_CONCURRENCY,
  DEFAULT_EVALUATOR_ENABLED,
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_SAMPLING_RATIO,
  DEFAULT_SQLITE_PATH,
  DEFAULT_TRIGGER_ON_FAILURE,
  DEFAULT_UNAVAILABLE_RETRY_FOR_MS,
} from '../../processor/evaluation/config.ts';
