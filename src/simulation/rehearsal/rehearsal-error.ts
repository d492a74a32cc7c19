/** A recorded conversation that cannot be rehearsed as it is, or a model answer that cannot be read. */
export class RehearsalError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'RehearsalError';
  }
}
