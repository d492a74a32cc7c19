/** A test double of the next pipeline stage: records what it is given, fails when told to. */
import type { SpanConsumer } from '../../collector/pipeline/consumer.ts';
import type { SpanData } from '../../collector/model/span.ts';
import type { SpanBatch } from '../../collector/model/span-batch.ts';

export class InMemorySpanConsumer implements SpanConsumer {
  readonly batches: SpanData[][] = [];
  private readonly failures: unknown[] = [];
  private gate: Promise<void> | undefined;

  /** The next `consume` call rejects with `error` (and records nothing). */
  failNext(error: unknown): void {
    this.failures.push(error);
  }

  /** Holds every `consume` call until the returned function is called. */
  hold(): () => void {
    let release!: () => void;
    this.gate = new Promise((resolve) => (release = resolve));
    return () => {
      this.gate = undefined;
      release();
    };
  }

  async consume(batch: SpanBatch): Promise<void> {
    if (this.gate !== undefined) await this.gate;
    if (this.failures.length > 0) throw this.failures.shift();
    this.batches.push(batch.spans());
  }

  spans(): SpanData[] {
    return this.batches.flat();
  }
}
