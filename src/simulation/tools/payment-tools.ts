/**
 * Payments: identity verification, payment methods (activate, add, renew, update, deactivate) and
 * transactions (retrieve, validate, block, refund). Contacts are keyed by email. Actions that need a
 * verified customer take the `verification_status` the verification tool returned.
 *
 * Pending-transaction checks look at the card's own transactions and at their current state (a
 * blocked transaction is no longer pending), never at the caller's text.
 */
import type { JsonObject } from '../../judge/json-value.ts';
import { amount, money, objectSchema, table, text, type Tool } from './tool.ts';

type Result = Record<string, string>;

function contactOf(context: JsonObject, email: string): JsonObject | undefined {
  return table(context, 'contacts')[email];
}

function cardOf(context: JsonObject, contact: JsonObject, lastFour: string): JsonObject | undefined {
  return Object.values(table(context, 'payment_methods')).find(
    (method) => method.contact_id === contact.id && String(method.last_four_digits) === lastFour,
  );
}

function pendingFor(context: JsonObject, card: JsonObject): JsonObject[] {
  return Object.values(table(context, 'transactions')).filter(
    (txn) => txn.payment_method_id === card.id && txn.status === 'Pending',
  );
}

/** Runs `body` after the verification, contact and card checks the tool needs; errors go under `key`. */
function guarded(
  key: string,
  args: JsonObject,
  context: JsonObject,
  needs: { verified?: boolean; card?: boolean },
  body: (contact: JsonObject, card: JsonObject | undefined) => string,
): Result {
  if (needs.verified) {
    const status = text(args, 'verification_status');
    if (status !== 'Verified')
      return { [key]: `Error: Customer verification required - status is ${status || 'missing'}` };
  }
  const contact = contactOf(context, text(args, 'email'));
  if (!contact) return { [key]: 'Error: Contact not found' };
  const card = needs.card ? cardOf(context, contact, text(args, 'last_four_digits')) : undefined;
  if (needs.card && !card) return { [key]: 'Error: Payment method not found' };
  return { [key]: body(contact, card) };
}

const verify: Tool = {
  name: 'verify_contact_id_with_addr',
  description:
    `Verify a customer's identity from email, name, postal code ` +
    'and state. Returns verification_status Verified or NotVerified.',
  inputSchema: objectSchema(
    { email: 'Customer email', name: 'Full name', postal_code: 'Postal code', state: 'State code' },
    ['email', 'name', 'postal_code', 'state'],
  ),
  run(args, context): JsonObject {
    const contact = contactOf(context, text(args, 'email'));
    if (!contact) return { verification_status: 'Error: Contact not found' };
    const matches =
      contact.name === text(args, 'name') &&
      String(contact.postal_code) === text(args, 'postal_code') &&
      contact.state === text(args, 'state');
    return { verification_status: matches ? 'Verified' : 'NotVerified' };
  },
};

const activate: Tool = {
  name: 'activate_payment_method',
  description: "Activate a verified customer's payment method, identified by its last four digits.",
  inputSchema: objectSchema(
    {
      verification_status: 'Result of verify_contact_id_with_addr',
      last_four_digits: 'Last four digits',
      email: 'Customer email',
    },
    ['verification_status', 'last_four_digits', 'email'],
  ),
  run: (args, context) =>
    guarded('activation_status', args, context, { verified: true, card: true }, (_, card) => {
      card!.status = 'Active';
      return `Successfully activated payment method ending in ${card!.last_four_digits}`;
    }),
};

const add: Tool = {
  name: 'add_payment_method',
  description: 'Add a new payment method for a verified customer.',
  inputSchema: objectSchema(
    {
      verification_status: 'Result of verify_contact_id_with_addr',
      email: 'Customer email',
      last_four_digits: 'Last four digits',
      billing_address: 'Billing address',
      expiry_date: 'Expiry date YYYY-MM-DD',
      payment_limit: 'Spending limit',
    },
    ['verification_status', 'email', 'last_four_digits', 'billing_address', 'expiry_date'],
    ['payment_limit'],
  ),
  run: (args, context) =>
    guarded('add_status', args, context, { verified: true }, (contact) => {
      const methods = table(context, 'payment_methods', true);
      const id = `PM-${String(Object.keys(methods).length + 1).padStart(3, '0')}`;
      const lastFour = text(args, 'last_four_digits');
      methods[id] = {
        id,
        contact_id: contact.id ?? null,
        last_four_digits: lastFour,
        status: 'Active',
        billing_address: text(args, 'billing_address'),
        expiry_date: text(args, 'expiry_date'),
        ...(args.payment_limit !== undefined ? { payment_limit: amount(args, 'payment_limit') } : {}),
      };
      return `Successfully added payment method ending in ${lastFour} for contact ${text(args, 'email')}`;
    }),
};

const block: Tool = {
  name: 'block_fraud_transaction',
  description: 'Block a pending transaction as fraudulent.',
  inputSchema: objectSchema({ transaction_number: 'Transaction number, e.g. TXN-001' }, ['transaction_number']),
  run(args, context): JsonObject {
    const number = text(args, 'transaction_number');
    const txn = table(context, 'transactions')[number];
    if (!txn) return { block_status: 'Error: Transaction not found' };
    if (txn.status !== 'Pending') {
      const reason = `status is ${txn.status}. Only Pending transactions can be blocked.`;
      return { block_status: `Error: Cannot block transaction - ${reason}` };
    }
    txn.status = 'Blocked';
    return { block_status: `Successfully blocked transaction ${number}` };
  },
};

const checkPending: Tool = {
  name: 'check_no_pending_transactions',
  description: 'Check that a payment method has no pending transactions (needed before deactivating or updating it).',
  inputSchema: objectSchema(
    {
      verification_status: 'Result of verify_contact_id_with_addr',
      email: 'Customer email',
      last_four_digits: 'Last four digits',
    },
    ['verification_status', 'email', 'last_four_digits'],
  ),
  run: (args, context) =>
    guarded('check_status', args, context, { verified: true, card: true }, (_, card) =>
      pendingFor(context, card!).length > 0
        ? `Warning: Found pending transactions for payment method ending in ${card!.last_four_digits}`
        : `Confirmed: No pending transactions for payment method ending in ${card!.last_four_digits}`,
    ),
};

const confirmAddress: Tool = {
  name: 'confirm_mailing_address',
  description: "Confirm the customer's mailing address, updating it when it differs.",
  inputSchema: objectSchema({ email: 'Customer email', mailing_address: 'Mailing address' }, [
    'email',
    'mailing_address',
  ]),
  run(args, context): JsonObject {
    const email = text(args, 'email');
    const contact = contactOf(context, email);
    if (!contact) return { confirmation_status: 'Error: Contact not found' };
    const address = text(args, 'mailing_address');
    if (contact.mailing_address === address) return { confirmation_status: `Mailing address confirmed for ${email}` };
    contact.mailing_address = address;
    return { confirmation_status: `Mailing address updated to: ${address}` };
  },
};

const deactivate: Tool = {
  name: 'deactivate_payment_method',
  description: 'Deactivate a payment method. Refused while it has pending transactions.',
  inputSchema: objectSchema(
    {
      check_status: 'Result of check_no_pending_transactions',
      email: 'Customer email',
      last_four_digits: 'Last four digits',
    },
    ['check_status', 'email', 'last_four_digits'],
  ),
  run: (args, context) =>
    guarded('deactivation_status', args, context, { card: true }, (_, card) => {
      if (pendingFor(context, card!).length > 0) return 'Error: Cannot deactivate - pending transactions exist';
      card!.status = 'Inactive';
      return `Successfully deactivated payment method ending in ${card!.last_four_digits}`;
    }),
};

const refund: Tool = {
  name: 'initiate_refund_transaction',
  description: 'Initiate a refund for a transaction.',
  inputSchema: objectSchema(
    { transaction_number: 'Transaction number', refund_amount: 'Amount to refund', refund_reason: 'Reason' },
    ['transaction_number', 'refund_amount', 'refund_reason'],
    ['refund_amount'],
  ),
  run(args, context): JsonObject {
    const number = text(args, 'transaction_number');
    const txn = table(context, 'transactions')[number];
    if (!txn) return { refund_status: 'Error: Transaction not found' };
    const value = amount(args, 'refund_amount');
    const reason = text(args, 'refund_reason');
    txn.refund = { amount: value, reason, status: 'Initiated' };
    return { refund_status: `Refund of $${money(value)} initiated for transaction ${number}. Reason: ${reason}` };
  },
};

const renew: Tool = {
  name: 'renew_payment_method',
  description: 'Renew a payment method with a new expiry date.',
  inputSchema: objectSchema(
    { email: 'Customer email', last_four_digits: 'Last four digits', new_expiry_date: 'New expiry date YYYY-MM-DD' },
    ['email', 'last_four_digits', 'new_expiry_date'],
  ),
  run: (args, context) =>
    guarded('renewal_status', args, context, { card: true }, (_, card) => {
      const date = text(args, 'new_expiry_date');
      card!.expiry_date = date;
      return `Successfully renewed payment method ending in ${card!.last_four_digits}. New expiry date: ${date}`;
    }),
};

const retrieve: Tool = {
  name: 'retrieve_transaction',
  description: "Find a verified customer's transaction by amount (and date, when several match).",
  inputSchema: objectSchema(
    {
      verification_status: 'Result of verify_contact_id_with_addr',
      email: 'Customer email',
      transaction_date: 'Date YYYY-MM-DD',
      transaction_amount: 'Amount',
    },
    ['verification_status', 'email', 'transaction_date', 'transaction_amount'],
    ['transaction_amount'],
  ),
  run(args, context): JsonObject {
    const verification = text(args, 'verification_status');
    if (verification !== 'Verified') {
      return { retrieve_status: `Error: Customer verification required - status is ${verification || 'missing'}` };
    }
    if (!contactOf(context, text(args, 'email'))) return { retrieve_status: 'Error: Contact not found' };
    const wanted = amount(args, 'transaction_amount');
    const matches = Object.entries(table(context, 'transactions')).filter(([, txn]) => txn.amount === wanted);
    const [id, txn] = matches.find(([, t]) => t.date === text(args, 'transaction_date')) ?? matches[0] ?? [];
    if (!txn) return { retrieve_status: 'Error: Transaction not found' };
    return {
      retrieve_status: 'Transaction found',
      transaction_number: id!,
      amount: txn.amount ?? null,
      status: txn.status ?? null,
      date: txn.date ?? null,
    };
  },
};

const update: Tool = {
  name: 'update_payment_method',
  description:
    "Update a payment method's billing address and/or payment limit. Refused while it has pending transactions.",
  inputSchema: objectSchema(
    {
      check_status: 'Result of check_no_pending_transactions',
      email: 'Customer email',
      last_four_digits: 'Last four digits',
      new_billing_address: 'New billing address',
      new_payment_limit: 'New spending limit',
    },
    ['check_status', 'email', 'last_four_digits'],
    ['new_payment_limit'],
  ),
  run: (args, context) =>
    guarded('update_status', args, context, { card: true }, (_, card) => {
      if (pendingFor(context, card!).length > 0) return 'Error: Cannot update - pending transactions exist';
      if (text(args, 'new_billing_address')) card!.billing_address = text(args, 'new_billing_address');
      if (args.new_payment_limit !== undefined) card!.payment_limit = amount(args, 'new_payment_limit');
      return `Successfully updated payment method ending in ${card!.last_four_digits}`;
    }),
};

const validate: Tool = {
  name: 'validate_payment_method',
  description: 'Validate the payment method used for a transaction.',
  inputSchema: objectSchema({ transaction_number: 'Transaction number', email: 'Customer email' }, [
    'transaction_number',
    'email',
  ]),
  run: (args, context) =>
    guarded('validation_status', args, context, {}, () => {
      const number = text(args, 'transaction_number');
      return table(context, 'transactions')[number]
        ? `Payment method validated for transaction ${number}`
        : 'Error: Transaction not found';
    }),
};

export const paymentTools: Tool[] = [
  verify,
  activate,
  add,
  block,
  checkPending,
  confirmAddress,
  deactivate,
  refund,
  renew,
  retrieve,
  update,
  validate,
];
