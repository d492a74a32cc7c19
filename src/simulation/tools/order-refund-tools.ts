/**
 * Orders and refunds: verify the customer, retrieve an order (by order number), check refund
 * eligibility, calculate, initiate, process, query and cancel refunds (orders named by `name`).
 *
 * Stateful: a positive eligibility check marks the order Eligible (so calculating the refund then
 * works), initiating creates the refund request, processing completes it, and the order carries
 * its refund status.
 */
import type { JsonObject } from '../../judge/json-value.ts';
import { objectSchema, table, text, type Tool } from './tool.ts';

const NO_ORDER = 'Error: No order found with the provided name';

function orderNamed(context: JsonObject, name: string): JsonObject | undefined {
  return Object.values(table(context, 'orders')).find((order) => order.name === name);
}

function nextRefundNumber(context: JsonObject): string {
  return `RFN-${String(Object.keys(table(context, 'refund_requests')).length + 1).padStart(4, '0')}`;
}

function refundAmount(order: JsonObject): number {
  const total = typeof order.total_price === 'number' ? order.total_price : 0;
  const percentage = typeof order.refund_percentage === 'number' ? order.refund_percentage : 100;
  return Math.round(total * percentage) / 100;
}

const verifyIdentity: Tool = {
  name: 'verify_customer_contact_identity',
  description: "Verify a customer's identity from email and name. Returns verification_status Verified or Unverified.",
  inputSchema: objectSchema({ email: 'Customer email', name: 'Full name' }, ['email', 'name']),
  run(args, context): JsonObject {
    const contact = table(context, 'contacts')[text(args, 'email')];
    const matches =
      contact !== undefined && String(contact.name ?? '').toLowerCase() === text(args, 'name').toLowerCase();
    return { verification_status: matches ? 'Verified' : 'Unverified' };
  },
};

const retrieveOrder: Tool = {
  name: 'retrieve_customer_order_information',
  description: 'Retrieve an order by its order number.',
  inputSchema: objectSchema({ order_number: 'Order number, e.g. ORD-2024-001' }, ['order_number']),
  run(args, context): JsonObject {
    const order = table(context, 'orders')[text(args, 'order_number')];
    if (!order) return { order_info: 'Error: No order found with the provided Order Number' };
    return {
      order_info: [
        'Order Details:',
        `Order Name: ${order.name ?? 'N/A'}`,
        `Order Number: ${order.order_number ?? 'N/A'}`,
        `Description: ${order.description ?? 'No description available'}`,
        `Total Price: $${order.total_price ?? 'N/A'}`,
        `Status: ${order.status ?? 'N/A'}`,
      ].join('\n'),
    };
  },
};

const verifyEligibility: Tool = {
  name: 'verify_customer_refund_eligibility',
  description: "Check whether a verified customer's order (by order name) is eligible for a refund.",
  inputSchema: objectSchema(
    {
      order_name: 'Order name, e.g. Laptop Order',
      contact_email: 'Customer email',
      verification_status: 'Result of verify_customer_contact_identity',
    },
    ['order_name', 'contact_email', 'verification_status'],
  ),
  run(args, context): JsonObject {
    const order = orderNamed(context, text(args, 'order_name'));
    if (text(args, 'verification_status') !== 'Verified' || !order) return { eligibility_status: 'Ineligible' };
    const eligible =
      order.contact_email === text(args, 'contact_email') &&
      typeof order.total_price === 'number' &&
      order.total_price >= 5;
    if (eligible) order.refund_eligibility_status = 'Eligible';
    return { eligibility_status: eligible ? 'Eligible' : 'Ineligible' };
  },
};

const calculateRefund: Tool = {
  name: 'calculate_refund_amount',
  description: 'Calculate the refund for an eligible order (by order name) and the number its refund request will get.',
  inputSchema: objectSchema({ order_name: 'Order name' }, ['order_name']),
  run(args, context): JsonObject {
    const order = orderNamed(context, text(args, 'order_name'));
    if (!order) return { refund_request_number: NO_ORDER };
    if (order.refund_eligibility_status !== 'Eligible')
      return { refund_request_number: 'Error: Order is not eligible for refund' };
    return { refund_request_number: nextRefundNumber(context), refund_amount: refundAmount(order) };
  },
};

const initiateRefund: Tool = {
  name: 'initiate_customer_order_refund_process',
  description: 'Initiate the refund of an eligible order (by order name). Creates a refund request.',
  inputSchema: objectSchema(
    { order_name: 'Order name', refund_reason: 'Reason for the refund', payment_method: 'Where the refund goes' },
    ['order_name', 'refund_reason', 'payment_method'],
  ),
  run(args, context): JsonObject {
    const name = text(args, 'order_name');
    const order = orderNamed(context, name);
    if (!order) return { refund_request_number: NO_ORDER };
    if (order.refund_eligibility_status !== 'Eligible')
      return { refund_request_number: 'Error: Order is not eligible for refund' };
    if (typeof order.refund_request_number === 'string') {
      return {
        refund_request_number: order.refund_request_number,
        message: `A refund for order ${name} was already initiated`,
      };
    }
    const number = nextRefundNumber(context);
    const reason = text(args, 'refund_reason');
    table(context, 'refund_requests', true)[number] = {
      refund_request_number: number,
      order_id: order.id ?? null,
      status: 'Initiated',
      refund_amount: refundAmount(order),
      reason,
      payment_method: text(args, 'payment_method'),
    };
    order.refund_request_number = number;
    order.refund_status = 'Initiated';
    return { refund_request_number: number, message: `Refund initiated for order ${name}. Reason: ${reason}` };
  },
};

const processRefund: Tool = {
  name: 'process_refund',
  description: 'Process (complete) an initiated refund request.',
  inputSchema: objectSchema({ refund_request_number: 'Refund request number, e.g. RFN-0002' }, [
    'refund_request_number',
  ]),
  run(args, context): JsonObject {
    const number = text(args, 'refund_request_number');
    const request = table(context, 'refund_requests')[number];
    if (!request) return { refund_request_number: number, status: 'Error: Refund request not found' };
    if (request.status === 'Cancelled')
      return { refund_request_number: number, status: 'Error: Refund request was cancelled' };
    request.status = 'Completed';
    const order = Object.values(table(context, 'orders')).find(
      (o) => o.id !== undefined && o.id === request.order_id && o.refund_request_number === number,
    );
    if (order) order.refund_status = 'Completed';
    return { refund_request_number: number, status: 'Completed' };
  },
};

const refundStatus: Tool = {
  name: 'get_refund_status',
  description: 'Get the status of a refund request.',
  inputSchema: objectSchema({ refund_request_number: 'Refund request number' }, ['refund_request_number']),
  run(args, context): JsonObject {
    const request = table(context, 'refund_requests')[text(args, 'refund_request_number')];
    if (!request) return { refund_status: 'Error: Refund request not found' };
    return { refund_status: typeof request.status === 'string' ? request.status : 'Unknown' };
  },
};

const cancelRefund: Tool = {
  name: 'cancel_refund',
  description: 'Cancel a refund request that is not yet completed.',
  inputSchema: objectSchema(
    { refund_request_number: 'Refund request number', refund_status: 'Current status from get_refund_status' },
    ['refund_request_number', 'refund_status'],
  ),
  run(args, context): JsonObject {
    const number = text(args, 'refund_request_number');
    const request = table(context, 'refund_requests')[number];
    if (!request || request.status === 'Completed' || request.status === 'Cancelled') return { cancelled: false };
    request.status = 'Cancelled';
    const order = Object.values(table(context, 'orders')).find((o) => o.refund_request_number === number);
    if (order) order.refund_status = 'Cancelled';
    return { cancelled: true };
  },
};

export const orderRefundTools: Tool[] = [
  verifyIdentity,
  retrieveOrder,
  verifyEligibility,
  calculateRefund,
  initiateRefund,
  processRefund,
  refundStatus,
  cancelRefund,
];
