/** Hotels: look up a booking; cancel it with a full, partial (80 %) or credit refund. */
import type { JsonObject } from '../../judge/json-value.ts';
import { money, objectSchema, table, text, type Tool } from './tool.ts';

const REFUND_TYPES = ['full', 'partial', 'credit'];

const hotelBookingLookup: Tool = {
  name: 'hotel_booking_lookup',
  description: 'Look up a hotel booking by its reference.',
  inputSchema: objectSchema({ booking_ref: 'Booking reference, e.g. HTL-9012' }, ['booking_ref']),
  run(args, context): JsonObject {
    const ref = text(args, 'booking_ref');
    return table(context, 'bookings')[ref] ?? { error: `Booking ${ref} not found` };
  },
};

const hotelCancel: Tool = {
  name: 'hotel_cancel',
  description:
    'Cancel a hotel booking and refund it: full (the total), partial ' +
    '(80 % of the total) or credit (the total as account credit).',
  inputSchema: objectSchema(
    { booking_ref: 'Booking reference', refund_type: 'full, partial or credit' },
    ['booking_ref', 'refund_type'],
    [],
    { refund_type: REFUND_TYPES },
  ),
  run(args, context): JsonObject {
    const ref = text(args, 'booking_ref');
    const booking = table(context, 'bookings')[ref];
    if (!booking) return { error: `Booking ${ref} not found` };
    if (booking.status === 'cancelled') return { error: `Booking ${ref} is already cancelled` };
    const type = (text(args, 'refund_type') || 'full').toLowerCase();
    const total = typeof booking.total === 'number' ? booking.total : 0;
    const refund = type === 'full' || type === 'credit' ? total : type === 'partial' ? total * 0.8 : 0;
    const method =
      type === 'credit'
        ? 'account_credit'
        : typeof booking.payment_method === 'string'
          ? booking.payment_method
          : 'original_payment_method';
    booking.status = 'cancelled';
    booking.refund_type = type;
    booking.refund_amount = Number(money(refund));
    booking.refund_method = method;
    const label = type.charAt(0).toUpperCase() + type.slice(1);
    return {
      status: 'cancelled',
      booking_ref: ref,
      refund_type: type,
      refund_amount: Number(money(refund)),
      refund_method: method,
      message: `Booking ${ref} cancelled. ${label} refund of $${money(refund)} processed.`,
    };
  },
};

export const hotelTools: Tool[] = [hotelBookingLookup, hotelCancel];
