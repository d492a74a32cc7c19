/**
 * Whether agent spans carry content (input and output messages), which is opt-in in the GenAI
 * conventions. `register()` sets it for the process; without `register()` (an application that
 * sets up OpenTelemetry itself) the standard variable
 * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` decides. A call may override it.
 */

/** The standard opt-in variable for GenAI message content. */
export const CAPTURE_CONTENT_ENV = 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT';

/** Default upper bound of one content attribute, in UTF-8 bytes. */
export const DEFAULT_MAX_CONTENT_BYTES = 256 * 1024;

export interface ContentSettings {
  captureContent: boolean;
  maxContentBytes: number;
}

let configured: ContentSettings | undefined;
let fromEnv: ContentSettings | undefined;

export function contentSettings(): ContentSettings {
  if (configured) return configured;
  fromEnv ??= {
    captureContent: booleanEnv(process.env[CAPTURE_CONTENT_ENV]) ?? false,
    maxContentBytes: DEFAULT_MAX_CONTENT_BYTES,
  };
  return fromEnv;
}

/** Sets the process-wide settings; `undefined` goes back to the environment's. */
export function configureContent(settings: ContentSettings | undefined): void {
  configured = settings;
  fromEnv = undefined;
}

/** `true` / `false` (any case, also `1` / `0`), else undefined. */
export function booleanEnv(value: string | undefined): boolean | undefined {
  const normalized = value?.trim().toLowerCase();
  if (normalized === 'true' || normalized === '1') return true;
  if (normalized === 'false' || normalized === '0') return false;
  return undefined;
}
