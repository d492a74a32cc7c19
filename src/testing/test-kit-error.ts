/** A `TestKit` misuse or a wait that ran out: messages read `<method>: <what> (<hint>)`. */
export class TestKitError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TestKitError';
  }
}
