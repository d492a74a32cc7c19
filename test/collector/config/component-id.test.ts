/** Component ids as the OpenTelemetry Collector writes them: `type` or `type/name`. */
import { describe, expect, it } from 'vitest';
import { ComponentIdError, componentTypeOf, parseComponentId } from '../../../collector/config/component-id.ts';

describe('parseComponentId', () => {
  it('splits type and name at the first slash', () => {
    expect(parseComponentId('otlphttp')).toEqual({ id: 'otlphttp', type: 'otlphttp' });
    expect(parseComponentId('otlphttp/tempo')).toEqual({ id: 'otlphttp/tempo', type: 'otlphttp', name: 'tempo' });
    expect(parseComponentId('llm-judge/strict')).toMatchObject({ type: 'llm-judge', name: 'strict' });
    expect(parseComponentId('otlphttp/eu/west')).toMatchObject({ type: 'otlphttp', name: 'eu/west' });
  });

  it.each([
    ['otlphttp/', 'has an empty name after "/" (write otlphttp/<name>, such as otlphttp/primary)'],
    ['/tempo', 'has no type before "/" (write type/name, such as otlphttp/tempo)'],
    ['', 'has no type before "/" (write type/name, such as otlphttp/tempo)'],
    ['9lives/x', 'has an invalid type "9lives" (a letter, then letters, digits, _ or -)'],
    ['otlphttp/two words', 'has an invalid name "two words" (no spaces or control characters)'],
  ])('refuses %j: %s', (key, message) => {
    expect(() => parseComponentId(key)).toThrow(new ComponentIdError(message));
    expect(componentTypeOf(key)).toBeUndefined();
  });
});
