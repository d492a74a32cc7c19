/**
 * A scripted model that plays the six shipped scenarios end to end: the customers, the
 * representatives, the in-process agent (real tool calls on each scenario's context) and the
 * judge. It is stateless (every reply is computed from the request), so any number of runs and
 * trials can share one scripted model concurrently. Used by the shipped-scenarios test and by
 * bench/simulate.ts.
 */
import type { RecordedRequest, ScriptedHandler, ScriptedReply } from '../../src/testing/scripted-model.ts';

type Step = ScriptedReply | string;
const tools = (...uses: Array<[string, object]>): ScriptedReply => ({
  toolUse: uses.map(([name, input]) => ({ name, input })),
});
export const DONE = 'All done: everything you asked for is resolved.';

/** Per scenario: a name from the persona, the customer's opening line, and the agent's replies in order. */
export const SHIPPED_SCRIPTS: Record<string, { key: string; opening: string; agent: Step[] }> = {
  reschedule_flight: {
    key: 'Jane Doe',
    opening: 'My flight AA123 is delayed, booking BK-5678. Please rebook me.',
    agent: [
      tools(['flight_lookup', { flight_number: 'AA123' }], ['flight_lookup', { origin: 'JFK', destination: 'SFO' }]),
      tools(['flight_rebook', { booking_ref: 'BK-5678', new_flight_number: 'AA456' }]),
      `${DONE} You are on AA456, departing 2026-03-23 18:00.`,
    ],
  },
  hotel_cancellation_assist: {
    key: 'Mark Johnson',
    opening: 'I need to cancel booking HTL-9012 at The Grand Hotel.',
    agent: [
      tools(['hotel_booking_lookup', { booking_ref: 'HTL-9012' }]),
      tools(['hotel_cancel', { booking_ref: 'HTL-9012', refund_type: 'full' }]),
      'Cancelled HTL-9012 with a full refund of $500; tell the guest.',
    ],
  },
  payment_activation: {
    key: 'Sarah Chen',
    opening: 'My Visa ending 4532 was declined. I am Sarah Chen, sarah.chen@example.com, CA 94102.',
    agent: [
      tools([
        'verify_contact_id_with_addr',
        { email: 'sarah.chen@example.com', name: 'Sarah Chen', postal_code: '94102', state: 'CA' },
      ]),
      tools([
        'activate_payment_method',
        { verification_status: 'Verified', last_four_digits: '4532', email: 'sarah.chen@example.com' },
      ]),
      `${DONE} Your card ending 4532 is active.`,
    ],
  },
  billing_dispute_assist: {
    key: 'Jordan Martinez',
    opening: 'There is a $49.99 charge I do not recognise.',
    agent: [
      tools([
        'retrieve_transaction',
        {
          verification_status: 'Verified',
          email: 'jordan.martinez@example.com',
          transaction_date: '2026-04-01',
          transaction_amount: 49.99,
        },
      ]),
      'Verify identity, look up the account and search the $49.99 charge; it is not found, so refund it as a dispute.',
    ],
  },
  comprehensive_payment_issue: {
    key: 'John Martinez',
    opening: 'I have several payment problems: a fraudulent $499.99 charge, cards to renew, activate and deactivate.',
    agent: [
      tools([
        'verify_contact_id_with_addr',
        { email: 'john.martinez@example.com', name: 'John Martinez', postal_code: '10001', state: 'NY' },
      ]),
      tools(
        [
          'confirm_mailing_address',
          { email: 'john.martinez@example.com', mailing_address: '456 Broadway, New York, NY 10001' },
        ],
        [
          'retrieve_transaction',
          {
            verification_status: 'Verified',
            email: 'john.martinez@example.com',
            transaction_date: '2026-04-09',
            transaction_amount: 499.99,
          },
        ],
        ['validate_payment_method', { transaction_number: 'TXN-001', email: 'john.martinez@example.com' }],
      ),
      tools(
        ['block_fraud_transaction', { transaction_number: 'TXN-001' }],
        [
          'initiate_refund_transaction',
          { transaction_number: 'TXN-001', refund_amount: 499.99, refund_reason: 'fraud' },
        ],
      ),
      tools(
        [
          'check_no_pending_transactions',
          { verification_status: 'Verified', email: 'john.martinez@example.com', last_four_digits: '9012' },
        ],
        [
          'renew_payment_method',
          { email: 'john.martinez@example.com', last_four_digits: '1234', new_expiry_date: '2029-05-31' },
        ],
        [
          'activate_payment_method',
          { verification_status: 'Verified', last_four_digits: '5678', email: 'john.martinez@example.com' },
        ],
      ),
      tools(
        [
          'deactivate_payment_method',
          { check_status: 'Confirmed', email: 'john.martinez@example.com', last_four_digits: '9012' },
        ],
        [
          'update_payment_method',
          {
            check_status: 'Confirmed',
            email: 'john.martinez@example.com',
            last_four_digits: '1234',
            new_payment_limit: 6000,
          },
        ],
      ),
      `${DONE} Fraud blocked and refunded, Visa renewed, Mastercard active, debit card deactivated.`,
    ],
  },
  order_refund: {
    key: 'Emily Rodriguez',
    opening: 'My laptop order ORD-2024-001 arrived defective. I want a refund.',
    agent: [
      tools(
        ['verify_customer_contact_identity', { email: 'emily.rodriguez@example.com', name: 'Emily Rodriguez' }],
        ['retrieve_customer_order_information', { order_number: 'ORD-2024-001' }],
      ),
      tools([
        'verify_customer_refund_eligibility',
        { order_name: 'Laptop Order', contact_email: 'emily.rodriguez@example.com', verification_status: 'Verified' },
      ]),
      tools(['calculate_refund_amount', { order_name: 'Laptop Order' }]),
      tools([
        'initiate_customer_order_refund_process',
        { order_name: 'Laptop Order', refund_reason: 'defective', payment_method: 'original card' },
      ]),
      tools(['process_refund', { refund_request_number: 'RFN-0002' }]),
      `${DONE} Your refund of $899.99 (RFN-0002) is completed; expect it in 5-7 business days.`,
    ],
  },
};

function systemOf(request: RecordedRequest): string {
  return typeof request.body.system === 'string' ? request.body.system : '';
}

/** Every text of a request, with tool uses (current and remembered) written as `TOOL name {args}`. */
function textsOf(request: RecordedRequest): string {
  const parts: string[] = [];
  for (const message of request.body.messages as Array<{ content: unknown }>) {
    if (typeof message.content === 'string') parts.push(message.content);
    else
      for (const block of message.content as Array<Record<string, unknown>>) {
        if (block.type === 'text') parts.push(String(block.text));
        if (block.type === 'tool_use') parts.push(`TOOL ${String(block.name)} ${JSON.stringify(block.input)}`);
        if (block.type === 'tool_result') parts.push(String(block.content));
      }
  }
  return parts
    .join('\n')
    .replace(/\[you previously called tool '([^']+)' in \S+ with arguments (\{.*?\}) →/g, 'TOOL $1 $2 →');
}

function lastUserText(request: RecordedRequest): string {
  const messages = request.body.messages as Array<{ role: string; content: unknown }>;
  const last = [...messages].reverse().find((message) => message.role === 'user');
  return typeof last?.content === 'string' ? last.content : '';
}

function scenarioOf(text: string): string | undefined {
  return Object.entries(SHIPPED_SCRIPTS).find(
    ([, script]) => text.includes(script.key) || text.includes(script.opening),
  )?.[0];
}

/** The next scripted agent reply: the first step whose tool use or text the request does not show yet. */
function nextAgentStep(request: RecordedRequest, script: Step[]): Step {
  const seen = textsOf(request);
  for (const step of script) {
    if (typeof step === 'string') {
      if (!seen.includes(step)) return step;
    } else if (!step.toolUse!.every((use) => seen.includes(`TOOL ${use.name} ${JSON.stringify(use.input)}`))) {
      return step;
    }
  }
  return '[NO_ACTION]';
}

/** The handler for `scriptedModel.respondWith`, with an optional latency per reply. */
export function shippedScenarioPlayer(latencyMs = 0): ScriptedHandler {
  const withLatency = (reply: Step): ScriptedReply => {
    const scripted = typeof reply === 'string' ? { text: reply } : { ...reply };
    return latencyMs > 0 ? { ...scripted, delayMs: latencyMs } : scripted;
  };
  return (request) => {
    const system = systemOf(request);
    if (system.includes('expert evaluator')) {
      return withLatency(
        lastUserText(request).includes('"score"')
          ? '{"score": 0.9, "reasoning": "good"}'
          : '{"passed": true, "reasoning": "met"}',
      );
    }
    if (system.includes('simulated event source')) return withLatency('[]');
    const name = /Your name\/role: (\S+)/.exec(system)?.[1];
    if (name === 'end_user') {
      if (lastUserText(request).includes('All done')) return withLatency('Thank you, that is everything. [END]');
      const scenario = scenarioOf(system);
      return withLatency(
        request.body.messages.length <= 1 && scenario
          ? SHIPPED_SCRIPTS[scenario].opening
          : 'Could you go ahead, please?',
      );
    }
    if (name !== undefined) {
      // Representatives: quiet towards the agent; they tell the customer once the agent has guided them.
      if (system.includes('"agent_assist" conversation')) return withLatency('[NO_QUESTION]');
      return withLatency(
        /Cancelled HTL-9012|refund it as a dispute/.test(system)
          ? `${DONE} It is handled as the policy allows.`
          : 'Let me check that for you.',
      );
    }
    const first = String((request.body.messages[0] as { content: unknown }).content);
    const scenario = scenarioOf(first);
    return withLatency(scenario ? nextAgentStep(request, SHIPPED_SCRIPTS[scenario].agent) : '[NO_ACTION]');
  };
}
