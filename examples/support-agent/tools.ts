/**
 * The support agent's two tools, as Anthropic SDK runnable tools over a small in-memory order book.
 * The tool runner runs them; the SDK's native tracing records each run as an `execute_tool` span.
 */
import { betaTool } from '@anthropic-ai/sdk/helpers/beta/json-schema';

interface Order {
  status: 'processing' | 'shipped' | 'delivered';
  items: string[];
  shipping?: { carrier: string; trackingNumber: string; eta: string };
}

const ORDERS: Record<string, Order> = {
  'A-17': {
    status: 'shipped',
    items: ['trail shoes'],
    shipping: { carrier: 'UPS', trackingNumber: '1Z999AA1', eta: 'on Thursday' },
  },
  'B-42': { status: 'processing', items: ['rain jacket', 'gloves'] },
  'C-08': {
    status: 'delivered',
    items: ['headlamp'],
    shipping: { carrier: 'DHL', trackingNumber: 'JD0146', eta: 'on Monday' },
  },
};

const orderIdSchema = {
  type: 'object',
  properties: { orderId: { type: 'string', description: 'The order number, like A-17' } },
  required: ['orderId'],
  additionalProperties: false,
} as const;

export const getOrder = betaTool({
  name: 'get_order',
  description: 'Looks an order up by its number: its status and items.',
  inputSchema: orderIdSchema,
  run: async ({ orderId }) => {
    const order = ORDERS[orderId.toUpperCase()];
    return JSON.stringify(
      order ? { orderId, status: order.status, items: order.items } : { orderId, error: 'no such order' },
    );
  },
});

export const getShipping = betaTool({
  name: 'get_shipping',
  description: 'Shipping details of an order: carrier, tracking number and expected delivery.',
  inputSchema: orderIdSchema,
  run: async ({ orderId }) => {
    const shipping = ORDERS[orderId.toUpperCase()]?.shipping;
    return JSON.stringify(shipping ? { orderId, ...shipping } : { orderId, error: 'not shipped yet' });
  },
});

export const supportTools = [getOrder, getShipping];
