/**
 * An HTTP server, or an HTTPS one when the component has `tls`: the OTLP/HTTP receiver, the API
 * and the Prometheus endpoint listen through this, so TLS and mutual TLS behave the same on each.
 * With `client_ca_file`, a client without a certificate signed by it fails the handshake: no
 * request of it reaches the handler.
 */
import { createServer as createPlainServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { ServerTlsOptions } from './tls-files.ts';

export function createHttpServer(
  tls: ServerTlsOptions | undefined,
  options: ServerOptions,
  listener: RequestListener,
): Server {
  return tls ? createTlsServer({ ...options, ...tls }, listener) : createPlainServer(options, listener);
}

/** `http` or `https`, for the URLs the collector logs. */
export function schemeOf(tls: unknown): 'http' | 'https' {
  return tls ? 'https' : 'http';
}
