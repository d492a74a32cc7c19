import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../../src/judge/json-value.ts';
import { builtInTools, executeTool } from '../../../../src/simulation/tools/tool-registry.ts';
import { parseScenario } from '../../../../src/simulation/scenario/scenario-loader.ts';
import { readFileSync } from 'node:fs';

const tools = builtInTools();
const contextOf = (file: string): JsonObject =>
  structuredClone(parseScenario(readFileSync(`scenarios/${file}.yaml`, 'utf8'), file).context);
const call = async (context: JsonObject, name: string, args: JsonObject) => {
  const interaction = await executeTool(tools, name, args, context);
  return interaction.result.error ?? interaction.result.result;
};

describe('mock tools', () => {
  it('registers all 26 tools with object input schemas', () => {
    expect(tools).toHaveLength(26);
    expect(new Set(tools.map((tool) => tool.name)).size).toBe(26);
    expect(tools.every((tool) => tool.inputSchema.type === 'object')).toBe(true);
  });

  it('reports unknown tools and missing context as results, not crashes', async () => {
    expect(await call({}, 'teleport', {})).toBe("Tool 'teleport' not found");
    expect(await call({}, 'hotel_booking_lookup', { booking_ref: 'X' })).toEqual({ error: 'Booking X not found' });
    expect(await call({}, 'block_fraud_transaction', { transaction_number: 'T' })).toEqual({
      block_status: 'Error: Transaction not found',
    });
  });

  it('searches on-time flights and rebooks, moving the booking and a seat', async () => {
    const context = contextOf('reschedule_flight');
    expect(await call(context, 'flight_lookup', { flight_number: 'AA123' })).toMatchObject({
      status: 'delayed',
      booking_ref: 'BK-5678',
    });
    expect(await call(context, 'flight_lookup', { flight_number: 'ZZ1' })).toEqual({ error: 'Flight ZZ1 not found' });
    const search = (await call(context, 'flight_lookup', { origin: 'JFK', destination: 'SFO' })) as {
      available_flights: JsonObject[];
    };
    expect(search.available_flights.map((flight) => flight.flight_number)).toEqual(['AA456', 'AA789']);
    expect(await call(context, 'flight_rebook', { booking_ref: 'BK-5678', new_flight_number: 'AA456' })).toMatchObject({
      status: 'confirmed',
      message: 'Successfully rebooked to AA456',
      new_flight: { booking_ref: 'BK-5678', passenger: 'Jane Doe', seats_available: 11 },
    });
    expect(await call(context, 'flight_lookup', { flight_number: 'AA123' })).not.toHaveProperty('booking_ref');
    expect(await call(context, 'flight_rebook', { booking_ref: 'BK-5678', new_flight_number: 'AA456' })).toEqual({
      error: 'Booking BK-5678 is already on flight AA456',
    });
  });

  it('cancels a hotel booking once, with the refund computed from the total', async () => {
    const context = contextOf('hotel_cancellation_assist');
    expect(await call(context, 'hotel_cancel', { booking_ref: 'HTL-9012', refund_type: 'full' })).toEqual({
      status: 'cancelled',
      booking_ref: 'HTL-9012',
      refund_type: 'full',
      refund_amount: 500,
      refund_method: 'corporate_card',
      message: 'Booking HTL-9012 cancelled. Full refund of $500.00 processed.',
    });
    expect(await call(context, 'hotel_booking_lookup', { booking_ref: 'HTL-9012' })).toMatchObject({
      status: 'cancelled',
    });
    expect(await call(context, 'hotel_cancel', { booking_ref: 'HTL-9012', refund_type: 'full' })).toEqual({
      error: 'Booking HTL-9012 is already cancelled',
    });
  });

  it('verifies identity and activates a card, which stays active', async () => {
    const context = contextOf('payment_activation');
    const identity = { email: 'sarah.chen@example.com', name: 'Sarah Chen', postal_code: '94102', state: 'CA' };
    expect(await call(context, 'verify_contact_id_with_addr', identity)).toEqual({ verification_status: 'Verified' });
    expect(await call(context, 'verify_contact_id_with_addr', { ...identity, state: 'NY' })).toEqual({
      verification_status: 'NotVerified',
    });
    const activate = { verification_status: 'NotVerified', last_four_digits: '4532', email: 'sarah.chen@example.com' };
    expect(await call(context, 'activate_payment_method', activate)).toEqual({
      activation_status: 'Error: Customer verification required - status is NotVerified',
    });
    expect(await call(context, 'activate_payment_method', { ...activate, verification_status: 'Verified' })).toEqual({
      activation_status: 'Successfully activated payment method ending in 4532',
    });
    expect((context.payment_methods as JsonObject)['PM-001']).toMatchObject({ status: 'Active' });
  });

  it(
    'blocks a pending transaction, after which the card ' + 'has no pending transactions and can be deactivated',
    async () => {
      const context = contextOf('comprehensive_payment_issue');
      const card = { verification_status: 'Verified', email: 'john.martinez@example.com', last_four_digits: '1234' };
      expect(await call(context, 'check_no_pending_transactions', card)).toEqual({
        check_status: 'Warning: Found pending transactions for payment method ending in 1234',
      });
      expect(await call(context, 'deactivate_payment_method', { ...card, check_status: 'x' })).toEqual({
        deactivation_status: 'Error: Cannot deactivate - pending transactions exist',
      });
      expect(await call(context, 'block_fraud_transaction', { transaction_number: 'TXN-001' })).toEqual({
        block_status: 'Successfully blocked transaction TXN-001',
      });
      expect(await call(context, 'block_fraud_transaction', { transaction_number: 'TXN-001' })).toEqual({
        block_status: 'Error: Cannot block transaction - status is Blocked. Only Pending transactions can be blocked.',
      });
      const check = (await call(context, 'check_no_pending_transactions', card)) as { check_status: string };
      expect(check.check_status).toBe('Confirmed: No pending transactions for payment method ending in 1234');
      // The reference refused this because the confirmation text contains the word "pending".
      expect(await call(context, 'deactivate_payment_method', { ...card, check_status: check.check_status })).toEqual({
        deactivation_status: 'Successfully deactivated payment method ending in 1234',
      });
      expect(
        await call(context, 'retrieve_transaction', {
          ...card,
          transaction_date: '2026-04-09',
          transaction_amount: 499.99,
        }),
      ).toMatchObject({
        retrieve_status: 'Transaction found',
        transaction_number: 'TXN-001',
        status: 'Blocked',
      });
      expect(
        await call(context, 'initiate_refund_transaction', {
          transaction_number: 'TXN-001',
          refund_amount: 499.99,
          refund_reason: 'fraud',
        }),
      ).toEqual({
        refund_status: 'Refund of $499.99 initiated for transaction TXN-001. Reason: fraud',
      });
      expect(
        await call(context, 'confirm_mailing_address', {
          email: 'john.martinez@example.com',
          mailing_address: '1 New St',
        }),
      ).toEqual({ confirmation_status: 'Mailing address updated to: 1 New St' });
      expect(
        await call(context, 'escalate_customer_case', { case_number: 'CASE-001', escalation_reason: 'fraud' }),
      ).toEqual({
        escalation_status: 'Case CASE-001 escalated to senior agent. Reason: fraud',
      });
      expect((context.cases as JsonObject)['CASE-001']).toMatchObject({ status: 'Escalated' });
      await call(context, 'notify_customer_contact', {
        contact_email: 'john.martinez@example.com',
        subject: 'Done',
        body: 'All fixed',
      });
      expect(context.notifications).toEqual([
        { contact_email: 'john.martinez@example.com', subject: 'Done', body: 'All fixed' },
      ]);
    },
  );

  it('runs the order refund workflow through eligibility, calculation, initiation and processing', async () => {
    const context = contextOf('order_refund');
    const order = { order_name: 'Laptop Order' };
    expect(await call(context, 'calculate_refund_amount', order)).toEqual({
      refund_request_number: 'Error: Order is not eligible for refund',
    });
    expect(
      await call(context, 'verify_customer_contact_identity', {
        email: 'emily.rodriguez@example.com',
        name: 'emily rodriguez',
      }),
    ).toEqual({ verification_status: 'Verified' });
    expect(await call(context, 'retrieve_customer_order_information', { order_number: 'ORD-2024-001' })).toEqual({
      order_info:
        'Order Details:\nOrder Name: Laptop Order\nOrder Number: ORD-2024-001\nDescription: Dell XPS 15 Laptop - ' +
        'Silver, 16GB RAM, 512GB SSD\nTotal Price: $899.99\nStatus: Delivered',
    });
    expect(
      await call(context, 'verify_customer_refund_eligibility', {
        ...order,
        contact_email: 'emily.rodriguez@example.com',
        verification_status: 'Verified',
      }),
    ).toEqual({ eligibility_status: 'Eligible' });
    expect(await call(context, 'calculate_refund_amount', order)).toEqual({
      refund_request_number: 'RFN-0002',
      refund_amount: 899.99,
    });
    expect(
      await call(context, 'initiate_customer_order_refund_process', {
        ...order,
        refund_reason: 'defective',
        payment_method: 'card',
      }),
    ).toEqual({
      refund_request_number: 'RFN-0002',
      message: 'Refund initiated for order Laptop Order. Reason: defective',
    });
    expect(await call(context, 'process_refund', { refund_request_number: 'RFN-0002' })).toEqual({
      refund_request_number: 'RFN-0002',
      status: 'Completed',
    });
    expect(await call(context, 'get_refund_status', { refund_request_number: 'RFN-0002' })).toEqual({
      refund_status: 'Completed',
    });
    expect(
      await call(context, 'cancel_refund', { refund_request_number: 'RFN-0002', refund_status: 'Initiated' }),
    ).toEqual({ cancelled: false });
    expect((context.orders as JsonObject)['ORD-2024-001']).toMatchObject({ refund_status: 'Completed' });
  });
});
