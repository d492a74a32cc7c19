/** Escalation and notification: always succeed, and leave a record in the context. */
import type { JsonObject } from '../../judge/json-value.ts';
import { list, objectSchema, table, text, type Tool } from './tool.ts';

const escalateCustomerCase: Tool = {
  name: 'escalate_customer_case',
  description: 'Escalate a customer case to a senior agent, with the reason.',
  inputSchema: objectSchema(
    { case_number: 'Case number, e.g. CASE-001', escalation_reason: 'Why the case is escalated' },
    ['case_number', 'escalation_reason'],
  ),
  run(args, context): JsonObject {
    const number = text(args, 'case_number');
    const reason = text(args, 'escalation_reason');
    const cases = table(context, 'cases', true);
    cases[number] ??= { case_number: number };
    const record = cases[number];
    record.status = 'Escalated';
    record.escalation_reason = reason;
    return { escalation_status: `Case ${number} escalated to senior agent. Reason: ${reason}` };
  },
};

const notifyCustomerContact: Tool = {
  name: 'notify_customer_contact',
  description: 'Send the customer an email notification.',
  inputSchema: objectSchema({ contact_email: 'Customer email', subject: 'Subject line', body: 'Message body' }, [
    'contact_email',
    'subject',
    'body',
  ]),
  run(args, context): JsonObject {
    const email = text(args, 'contact_email');
    const subject = text(args, 'subject');
    list(context, 'notifications').push({ contact_email: email, subject, body: text(args, 'body') });
    return { notification_status: `Success, email sent to ${email} with subject: ${subject}` };
  },
};

export const customerSupportTools: Tool[] = [escalateCustomerCase, notifyCustomerContact];
