/**
 * Model settings from the environment:
 * - `ANTHROPIC_BASE_URL` (default https://api.anthropic.com; a trailing `/bedrock` is stripped),
 * - `ANTHROPIC_API_KEY`,
 * - `EVALON_MODEL` (default model),
 * - `EVALON_CA_CERTS` (a PEM bundle added to, not replacing, the trusted CAs).
 */
import { existsSync, readFileSync } from 'node:fs';
import tls from 'node:tls';

export const DEFAULT_MODEL = 'claude-sonnet-4-6';
export const DEFAULT_BASE_URL = 'https://api.anthropic.com';

export interface ModelSettings {
  baseURL: string;
  apiKey: string;
  model: string;
  caCertsPath?: string;
}

export function modelSettingsFromEnv(env: Record<string, string | undefined> = process.env): ModelSettings {
  const rawBase = env.ANTHROPIC_BASE_URL?.trim() || DEFAULT_BASE_URL;
  return {
    baseURL: stripBedrockSuffix(rawBase),
    apiKey: env.ANTHROPIC_API_KEY ?? '',
    model: env.EVALON_MODEL?.trim() || DEFAULT_MODEL,
    ...(env.EVALON_CA_CERTS?.trim() ? { caCertsPath: env.EVALON_CA_CERTS.trim() } : {}),
  };
}

/** `https://host/bedrock` → `https://host` (only that exact suffix, with or without a final slash). */
export function stripBedrockSuffix(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return trimmed.endsWith('/bedrock') ? trimmed.slice(0, -'/bedrock'.length) : trimmed;
}

const applied = new Set<string>();

/**
 * Adds the certificates of a PEM bundle to the process's default trust store (once per path).
 * Returns false when the file does not exist: a missing bundle is ignored, not an error.
 */
export function addExtraCaCertificates(path: string): boolean {
  if (applied.has(path)) return true;
  if (!existsSync(path)) return false;
  const pem = readFileSync(path, 'utf8');
  const extra = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  tls.setDefaultCACertificates([...tls.getCACertificates('default'), ...extra]);
  applied.add(path);
  return true;
}
