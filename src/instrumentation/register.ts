/**
 * The `node --import` form of `register()`: loaded before the application, it sets up telemetry
 * from the environment alone, so the application's code does not change.
 *
 *   OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 OTEL_SERVICE_NAME=support \
 *   OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true node --import evalon/register app.js
 *
 * Every `register()` option has its standard variable (see telemetry-options.ts); a later
 * `register()` call in the application returns this registration.
 */
import { register } from './register-telemetry.ts';

register();
