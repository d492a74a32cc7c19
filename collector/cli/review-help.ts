/**
 * The help of `evalon review` and of each of its subcommands, by name: `review-command.ts`
 * dispatches exactly the subcommands listed here.
 */
import { DEFAULT_REVIEW_LIMIT } from '../ledger/review-store.ts';
import type { CommandHelp, OptionHelp } from './command.ts';
import { API_OPTIONS } from './ledger-help.ts';

const JSON_OPTION: OptionHelp = { flag: '--json', description: 'print the JSON the API answers' };
const ACCESS = '[--api URL] [--token TOKEN] [--ca-file FILE]';

export const REVIEW_SUBCOMMAND_HELP: Readonly<Record<string, CommandHelp>> = {
  list: {
    usage: `[--status open|claimed|done|expired] [--agent ID] [--limit N] [--cursor C] [--json] ${ACCESS}`,
    description:
      'Lists reviews of one status: open and claimed ones oldest first (the next to come due first), done and ' +
      'expired ones most recently completed first. A full page ends with the --cursor of the next.',
    options: [
      { flag: '--status STATUS', description: 'open, claimed, done or expired', default: 'open' },
      { flag: '--agent ID', description: "only this agent's reviews" },
      { flag: '--limit N', description: 'at most N reviews, 1 to 1000', default: String(DEFAULT_REVIEW_LIMIT) },
      { flag: '--cursor C', description: 'the page after the one that printed this cursor' },
      JSON_OPTION,
      ...API_OPTIONS,
    ],
    examples: ['evalon review list', 'evalon review list --status done --agent support-agent --json'],
  },
  show: {
    usage: `<reviewId> [--json] ${ACCESS}`,
    description:
      'Shows one review: why it is in the queue, the routed verdict, its claim, the transcript of the interaction ' +
      'reviewed, and the recorded verdict once done.',
    options: [JSON_OPTION, ...API_OPTIONS],
    examples: ['evalon review show 0b6f0c9e-5d1a-4a55-9d55-2b7b0c7b2f11'],
  },
  submit: {
    usage:
      '<reviewId> (--pass | --fail) --explanation TEXT [--score N] [--label L] [--reviewer NAME] [--json] ' + ACCESS,
    description:
      "Records a reviewer's verdict on a review: it becomes the review evaluation's outcome, recorded and exported " +
      'like every verdict. A review takes one verdict: a second is refused, showing the one recorded.',
    options: [
      { flag: '--pass', description: 'the interaction passes' },
      { flag: '--fail', description: 'the interaction fails' },
      { flag: '--explanation TEXT', description: 'why (required)' },
      { flag: '--score N', description: 'a score from 0 to 1' },
      { flag: '--label L', description: 'a label (hallucination, off-policy, …)' },
      { flag: '--reviewer NAME', description: 'who gives the verdict', default: '$USER' },
      JSON_OPTION,
      ...API_OPTIONS,
    ],
    examples: [
      'evalon review submit 0b6f0c9e-5d1a-4a55-9d55-2b7b0c7b2f11 --fail --score 0.2 --label hallucination ' +
        '--explanation "invented a refund policy"',
    ],
    notes:
      'Exit codes: 0 recorded, 1 refused (already reviewed, expired, claimed by another) or the API failed, ' +
      '2 bad input.',
  },
};

export const REVIEW_HELP: CommandHelp = {
  usage: ['list [options]', 'show <reviewId> [options]', 'submit <reviewId> (--pass | --fail) --explanation TEXT'],
  description:
    "Works the human review queue through the collector's API: list reviews, show one with its transcript, " +
    "submit a reviewer's verdict. The review page at /ui/ on the API does the same in a browser.",
  options: [...API_OPTIONS],
  examples: [
    'evalon review list',
    'evalon review show <reviewId>',
    'evalon review submit <reviewId> --pass --explanation "fine"',
  ],
};
