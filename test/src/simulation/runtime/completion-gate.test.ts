import { describe, expect, it } from 'vitest';
import {
  CompletionGate,
  ReplayMismatchError,
  canonicalJson,
  requestKey,
} from '../../../../src/simulation/runtime/completion-gate.ts';

const later = <T>(value: T, ms: number) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('completion gate', () => {
  it('delivers completions one at a time, in the order they finish, and logs them', async () => {
    const gate = new CompletionGate({ mode: 'record' });
    const seen: string[] = [];
    await Promise.all([
      gate.run('model', 'slow', () => later({ v: 'slow' }, 30), true).then((v) => seen.push(v.v)),
      gate.run('model', 'fast', () => later({ v: 'fast' }, 5), true).then((v) => seen.push(v.v)),
      gate.run('agent', 'code#1', () => later('code', 15), false).then((v) => seen.push(v)),
    ]);
    expect(seen).toEqual(['fast', 'code', 'slow']);
    expect(gate.log()).toEqual([
      { kind: 'model', key: 'fast', value: { v: 'fast' } },
      { kind: 'agent', key: 'code#1' },
      { kind: 'model', key: 'slow', value: { v: 'slow' } },
    ]);
  });

  it('replays recorded values in the recorded order without running replayable operations', async () => {
    const recording = [
      { kind: 'model' as const, key: 'b', value: 'B' },
      { kind: 'agent' as const, key: 'code#1' },
      { kind: 'model' as const, key: 'a', value: 'A' },
      { kind: 'model' as const, key: 'err', error: { name: 'APIError', message: 'overloaded', status: 529 } },
    ];
    const gate = new CompletionGate({ mode: 'replay', recording });
    const seen: string[] = [];
    let ran = false;
    const results = await Promise.allSettled([
      gate
        .run(
          'model',
          'a',
          () => {
            ran = true;
            return Promise.resolve('live');
          },
          true,
        )
        .then((v) => seen.push(v)),
      gate.run('agent', 'code#1', () => later('code', 20), false).then((v) => seen.push(v)),
      gate.run('model', 'b', () => Promise.resolve('live'), true).then((v) => seen.push(v)),
      gate.run('model', 'err', () => Promise.resolve('live'), true),
    ]);
    expect(ran).toBe(false);
    expect(seen).toEqual(['B', 'code', 'A']);
    expect(results[3]).toMatchObject({
      status: 'rejected',
      reason: { name: 'APIError', message: 'overloaded', status: 529 },
    });
  });

  it('rejects a replayed call the recording does not hold', async () => {
    const gate = new CompletionGate({ mode: 'replay', recording: [] });
    await expect(gate.run('model', 'unknown', () => Promise.resolve(1), true)).rejects.toBeInstanceOf(
      ReplayMismatchError,
    );
  });

  it('reports quiet when nothing is left in flight, and never logs a cancelled timer', async () => {
    const gate = new CompletionGate({ mode: 'record' });
    let quiet = 0;
    gate.onQuiet(() => quiet++);
    const timer = gate.timer('p#1', 10);
    timer.cancel();
    await gate.run('model', 'x', () => later(1, 5), true);
    await later(null, 30);
    expect(quiet).toBeGreaterThan(0);
    expect(gate.log().map((entry) => entry.kind)).toEqual(['model']);
    expect(gate.pending).toBe(0);
  });

  it('keys requests by canonical JSON, whatever the key order', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: undefined }] })).toBe('{"a":[{"d":2}],"b":1}');
    expect(requestKey({ a: 1, b: 2 })).toBe(requestKey({ b: 2, a: 1 }));
    expect(requestKey({ a: 1 })).not.toBe(requestKey({ a: 2 }));
  });
});
