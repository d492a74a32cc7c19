/** An exporter could not start (its endpoint cannot listen). The message names the YAML key. */
export class ExporterStartError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ExporterStartError';
  }
}
