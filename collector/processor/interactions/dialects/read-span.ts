/**
 * Reads one span in the dialect it speaks (`dialect.ts` decides which) into a `SpanView`.
 */
import type { SpanData } from '../../../model/span.ts';
import { readAnthropic } from './anthropic.ts';
import { dialectOf } from './dialect.ts';
import { readOpenInference } from './openinference.ts';
import { readSemconv } from './semconv.ts';
import type { SpanView } from './span-view.ts';
import { readTraceloop } from './traceloop.ts';
import { readVercel } from './vercel.ts';

export function readSpan(span: SpanData): SpanView {
  switch (dialectOf(span)) {
    case 'anthropic':
      return readAnthropic(span);
    case 'openinference':
      return readOpenInference(span);
    case 'traceloop':
      return readTraceloop(span);
    case 'vercel':
      return readVercel(span);
    case 'semconv':
      return readSemconv(span);
  }
}

export type { SpanRole, SpanView } from './span-view.ts';
