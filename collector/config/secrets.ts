/**
 * The secrets a configuration holds, so that the log can scrub them from every line
 * (logger.ts `secrets`): the bearer tokens of the receivers and the API, the values of exporter
 * headers that carry credentials, and the PostgreSQL ledger's password. Messages are written not to
 * contain them in the first place (the ledger URL is shown without its password); this is the net
 * under that rule.
 */
import { isRecord } from '../../src/config/yaml-path.ts';
import type { EvalonConfig } from './evalon-config.ts';

/** Header names whose values are credentials (`authorization`, `x-api-key`, `x-auth-token` …). */
const SECRET_HEADER = /authorization|token|key|secret|password|cookie/i;
/** `Bearer abc`, `Basic abc`: the credential after the scheme is a secret on its own too. */
const AUTH_SCHEME = /^\s*[A-Za-z][\w-]*\s+(\S+)\s*$/;

export function secretsOf(config: EvalonConfig): string[] {
  const secrets: string[] = [];
  const otlp = config.receivers.otlp;
  for (const token of [otlp?.http.bearerToken, otlp?.grpc?.bearerToken, config.extensions.api?.bearerToken])
    if (token !== undefined) secrets.push(token);
  for (const exporter of Object.values(config.exporters)) {
    const headers = isRecord(exporter) && isRecord(exporter.headers) ? exporter.headers : {};
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value !== 'string' || !SECRET_HEADER.test(name)) continue;
      secrets.push(value);
      const credential = AUTH_SCHEME.exec(value)?.[1];
      if (credential !== undefined) secrets.push(credential);
    }
  }
  const ledger = config.processors.evaluation.ledger;
  if (ledger.kind === 'postgres') secrets.push(...passwordsOf(ledger.url));
  return secrets;
}

/** The password of a connection URL, as written and decoded, and any `password` query parameter. */
function passwordsOf(url: string): string[] {
  try {
    const parsed = new URL(url);
    const found = parsed.password === '' ? [] : [parsed.password, decodeURIComponent(parsed.password)];
    for (const [key, value] of parsed.searchParams) if (/pass/i.test(key) && value !== '') found.push(value);
    return found;
  } catch {
    return [];
  }
}
