/**
 * Every command of `evalon`, in the order `evalon --help` lists them: the one list `main.ts`
 * dispatches from (and the help test walks). A command's module is loaded only when it runs, so
 * `evalon --help` stays fast; its full help (`evalon <command> --help`) lives beside its options
 * in that module. Adding a command: its module exports a `CliCommand`, and one line here.
 */
import type { CliCommand } from './command.ts';

export interface CommandEntry {
  name: string;
  /** One line for `evalon --help`. */
  summary: string;
  load(): Promise<CliCommand>;
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'collector',
    summary: 'run the collector (default config: otel-config.yaml)',
    load: async () => (await import('./collector-command.ts')).collectorCommand,
  },
  {
    name: 'validate',
    summary: 'check a configuration, its evaluator modules and properties; every problem with its YAML path',
    load: async () => (await import('./validate-command.ts')).validateCommand,
  },
  {
    name: 'explain',
    summary: 'which evaluator entry binds each agent, why, and its settings',
    load: async () => (await import('./explain-command.ts')).explainCommand,
  },
  {
    name: 'ledger',
    summary:
      'read recorded interactions, conversations and their evaluations through the API: list, show, evaluations, ' +
      'conversations, conversation',
    load: async () => (await import('./ledger-command.ts')).ledgerCommand,
  },
  {
    name: 'review',
    summary: 'work the human review queue through the API: review list, show, submit',
    load: async () => (await import('./review-command.ts')).reviewCommand,
  },
  {
    name: 'backfill',
    summary: 'evaluate stored interactions (or conversations that are over) again, once per evaluator version',
    load: async () => (await import('./backfill-command.ts')).backfillCommand,
  },
  {
    name: 'simulate',
    summary: 'rehearse agents in scripted conversations and judge them',
    load: async () => (await import('./simulate-command.ts')).simulateCommand,
  },
  {
    name: 'scenario',
    summary: 'turn a recorded conversation into a scenario that rehearses it: scenario from-conversation',
    load: async () => (await import('./scenario-command.ts')).scenarioCommand,
  },
  {
    name: 'demo',
    summary: 'the whole loop offline: collector, instrumented agent on a scripted model, verdicts',
    load: async () => (await import('../demo/demo-command.ts')).demoCommand,
  },
];
