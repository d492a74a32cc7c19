import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReplayMismatchError } from '../../../../src/simulation/runtime/completion-gate.ts';
import { runScenario } from '../../../../src/simulation/run/run-scenario.ts';
import { loadScenario } from '../../../../src/simulation/scenario/scenario-loader.ts';
import { lastUserText, startModel, type ModelFixture } from '../../../helpers/model-fixture.ts';

describe('record and replay', () => {
  let model: ModelFixture;
  beforeAll(async () => {
    model = await startModel();
  });
  afterAll(() => model.close());

  it('replays a recorded multi-party run offline with an identical transcript and verdict', async () => {
    const scenario = await loadScenario('scenarios/hotel_cancellation_assist.yaml');
    // Latencies vary per call, so concurrent participants finish in an order only timing decides.
    let call = 0;
    let userTurns = 0;
    let agentCalls = 0;
    model.scripted.reset();
    model.route({
      participant: (request, name) => {
        const delayMs = (call++ * 7) % 23;
        if (name === 'end_user')
          return {
            text: ++userTurns >= 4 ? 'Thanks, that is all. [END]' : `I need to cancel HTL-9012 (${userTurns})`,
            delayMs,
          };
        return {
          text: lastUserText(request).includes('[agent]') ? '[NO_QUESTION]' : 'Let me check that for you.',
          delayMs,
        };
      },
      agent: () => {
        agentCalls++;
        if (agentCalls === 1)
          return { toolUse: [{ name: 'hotel_booking_lookup', input: { booking_ref: 'HTL-9012' } }], delayMs: 11 };
        if (agentCalls === 2)
          return {
            toolUse: [{ name: 'hotel_cancel', input: { booking_ref: 'HTL-9012', refund_type: 'full' } }],
            delayMs: 3,
          };
        return { text: agentCalls % 2 === 0 ? '[NO_ACTION]' : 'Booking cancelled with a full refund.', delayMs: 5 };
      },
      judge: (request) => ({
        text: lastUserText(request).includes('scored')
          ? '{"score": 0.9, "reasoning": "good"}'
          : '{"passed": true, "reasoning": "yes"}',
        delayMs: (call++ * 5) % 13,
      }),
    });
    const recorded = await runScenario(scenario, {
      model: model.client,
      thinkingDelays: false,
      simulationTimeoutMs: 20_000,
    });
    expect(recorded.finalContext).toMatchObject({ bookings: { 'HTL-9012': { status: 'cancelled' } } });
    expect(recorded.evaluation.criteria.find((c) => c.name === 'booking_cancelled')).toMatchObject({
      passed: true,
      outcome: 'assertion',
    });

    const persisted = JSON.parse(JSON.stringify(recorded.recording));
    const replayed = await runScenario(scenario, {
      replay: persisted,
      thinkingDelays: false,
      simulationTimeoutMs: 20_000,
    });
    expect(JSON.stringify(replayed.transcript)).toBe(JSON.stringify(recorded.transcript));
    expect(JSON.stringify(replayed.evaluation)).toBe(JSON.stringify(recorded.evaluation));
    expect(replayed.finalContext).toEqual(recorded.finalContext);
    expect(replayed.endReason).toEqual(recorded.endReason);
  });

  it('replays thinking delays in their recorded order without waiting for them', async () => {
    const scenario = await loadScenario('scenarios/hotel_cancellation_assist.yaml');
    let userTurns = 0;
    model.scripted.reset();
    model.route({
      participant: (_request, name) => (name === 'end_user' ? (++userTurns >= 2 ? '[END]' : 'Cancel please') : 'Sure.'),
      agent: () => '[NO_ACTION]',
    });
    const recorded = await runScenario(scenario, { model: model.client, seed: 7, simulationTimeoutMs: 20_000 });
    expect(recorded.recording.some((completion) => completion.kind === 'timer')).toBe(true);
    const started = Date.now();
    const replayed = await runScenario(scenario, { replay: recorded.recording, seed: 7, simulationTimeoutMs: 20_000 });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(replayed.transcript).toEqual(recorded.transcript);
  }, 30_000);

  it('fails clearly when the run no longer matches the recording', async () => {
    const scenario = await loadScenario('scenarios/payment_activation.yaml');
    model.scripted.reset();
    model.route({ participant: () => 'Please activate my card [END]' });
    const recorded = await runScenario(scenario, { model: model.client, thinkingDelays: false });
    const changed = {
      ...scenario,
      participants: scenario.participants.map((p) => (p.name === 'end_user' ? { ...p, persona: 'someone else' } : p)),
    };
    const error = await runScenario(changed, { replay: recorded.recording, thinkingDelays: false }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: 'SimulationFailedError', participant: 'end_user' });
    expect((error as Error).cause).toBeInstanceOf(ReplayMismatchError);
    expect(((error as Error).cause as Error).message).toContain('record again');
  });
});
