/**
 * The conversation commands against a real ledger: `evalon ledger conversations` and `evalon
 * ledger conversation <id>` through the collector's API (table, turn by turn with every
 * revision's verdicts, JSON; an ambiguous id is bad input naming the agents, an unknown one a
 * failure), and `evalon backfill --conversations` (each closed revision once per version).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer, type ApiServer } from '../../../collector/api/api-server.ts';
import { main } from '../../../collector/cli/main.ts';
import { createSqliteStore, type SqliteLedgerStore } from '../../../collector/ledger/sqlite/sqlite-store.ts';
import { EVALON_CONVERSATION_ENDED } from '../../../src/model/attributes.ts';
import type { ConversationWithInteractions, InteractionRecord } from '../../../src/model/records.ts';
import { testInteractionRecord } from '../../../src/testing/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'evalon-cli-conversations-'));
const configFile = join(dir, 'otel-config.yaml');
const ledgerPath = join(dir, 'ledger.db');
const EXAMPLES = fileURLToPath(new URL('../../../examples/evaluators/index.ts', import.meta.url));

writeFileSync(
  configFile,
  `receivers:
  otlp: { protocols: { http: { endpoint: 127.0.0.1:0 } } }
service:
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
processors:
  interactions: {}
  evaluation:
    ledger: { sqlite: { path: ${ledgerPath} } }
    modules: [ ${EXAMPLES} ]
    evaluators:
      repeated-question-evaluator:
        max-asks: 1
        agents:
          support-agent: { trigger: conversation }
      interaction-quality-evaluator:
        agents:
          support-agent: { trigger: interaction }
`,
);

let clock = Date.now() - 3_600_000;
function turn(conversationId: string, agentId: string, reply: string, overrides: Partial<InteractionRecord> = {}) {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  clock += 60_000;
  return testInteractionRecord({
    traceId,
    spanId,
    interactionId: `${traceId}-${spanId}`,
    agentId,
    conversationId,
    startTime: new Date(clock).toISOString(),
    endTime: new Date(clock + 1000).toISOString(),
    finalResponseText: reply,
    ...overrides,
  });
}
const ended = { attributes: { [EVALON_CONVERSATION_ENDED]: true } };

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('evalon ledger conversations and conversation', () => {
  let store: SqliteLedgerStore;
  let server: ApiServer;
  let api: string;
  let support: InteractionRecord[];

  beforeAll(async () => {
    store = createSqliteStore({ path: ledgerPath });
    support = [
      turn('conv-1', 'support-agent', 'What is your order number?'),
      turn('conv-1', 'support-agent', 'Order A-17 shipped.', {
        toolCalls: [{ name: 'get_order', arguments: { id: 'A-17' } }],
      }),
      turn('conv-1', 'support-agent', 'Could you give me the order number again?', ended),
    ];
    await store.putInteractions([
      ...support,
      turn('conv-2', 'support-agent', 'Hello!'),
      turn('conv-2', 'billing-agent', 'Your invoice is attached.'),
    ]);
    await store.closeConversations(
      await store.findDueConversations({ now: new Date().toISOString(), idleMs: 86_400_000, limit: 10 }),
    );
    server = createApiServer({ host: '127.0.0.1', port: 0, store, ready: () => true });
    await server.start();
    api = `http://127.0.0.1:${server.address().port}`;
  });
  afterAll(async () => {
    await server.shutdown();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists conversations as a table, or JSON, filtered', async () => {
    const table = await cli(['ledger', 'conversations', '--api', api]);
    expect(table.code).toBe(0);
    const lines = table.out.split('\n');
    expect(lines[0]).toMatch(/^LAST ACTIVITY\s+CONVERSATION\s+AGENT\s+REVISION\s+STATE\s+TURNS\s+FAILED$/);
    expect(lines.slice(1).map((line) => line.split(/\s{2,}/).slice(1, 6))).toEqual([
      ['conv-2', 'billing-agent', '1', 'open', '1'],
      ['conv-2', 'support-agent', '1', 'open', '1'],
      ['conv-1', 'support-agent', '1', 'over (explicit)', '3'],
    ]);
    const json = await cli(['ledger', 'conversations', '--over', '--json', '--api', api]);
    expect(JSON.parse(json.out).map((c: { conversationId: string }) => c.conversationId)).toEqual(['conv-1']);
    expect((await cli(['ledger', 'conversations', '--open', '--agent', 'billing-agent', '--api', api])).out).toMatch(
      /conv-2\s+billing-agent/,
    );
    expect(await cli(['ledger', 'conversations', '--open', '--over', '--api', api])).toMatchObject({
      code: 2,
      err: 'evalon ledger conversations: --open and --over exclude each other',
    });
  });

  it('shows one conversation turn by turn, with its verdicts, or as JSON', async () => {
    const shown = await cli(['ledger', 'conversation', 'conv-1', '--api', api]);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain('Revision      1 (over (explicit) at ');
    expect(shown.out).toContain('(3 turns)');
    expect(shown.out).toContain(`  2. ${support[1].startTime.replace(/\.\d+Z$/, 'Z')}  ${support[1].interactionId}`);
    expect(shown.out).toContain('     ← Order A-17 shipped.');
    expect(shown.out).toContain('     tools: get_order');
    expect(shown.out).toContain('Evaluations\n  (none)');
    const json = JSON.parse((await cli(['ledger', 'conversation', 'conv-1', '--json', '--api', api])).out);
    expect((json as ConversationWithInteractions).interactions).toEqual(support);
  });

  it('names the agents of an ambiguous id (exit 2) and fails on an unknown one (exit 1)', async () => {
    expect(await cli(['ledger', 'conversation', 'conv-2', '--api', api])).toMatchObject({
      code: 2,
      err:
        'evalon ledger conversation: conversation conv-2 has several agents: billing-agent, support-agent (name ' +
        'one with --agent ID)',
    });
    expect((await cli(['ledger', 'conversation', 'conv-2', '--agent', 'billing-agent', '--api', api])).code).toBe(0);
    expect(await cli(['ledger', 'conversation', 'nope', '--api', api])).toMatchObject({
      code: 1,
      err: 'evalon ledger conversation: conversation nope not found',
    });
    expect((await cli(['ledger', 'conversation', '--api', api])).err).toBe(
      'evalon ledger conversation: missing <conversationId>',
    );
  });

  it('answers --help with usage and options, and sends --token to an API that requires one', async () => {
    const help = await cli(['ledger', 'conversations', '--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('evalon ledger conversations [--agent ID] [--open | --over]');
    expect(help.out).toContain('--token TOKEN');
    expect((await cli(['ledger', 'conversation', '-h'])).out).toContain('evalon ledger conversation <conversationId>');
    expect((await cli(['ledger', '--help'])).out).toMatch(/conversations\|conversation/);

    const guarded = createApiServer({ host: '127.0.0.1', port: 0, store, ready: () => true, bearerToken: 's3cret' });
    await guarded.start();
    try {
      const url = `http://127.0.0.1:${guarded.address().port}`;
      expect(await cli(['ledger', 'conversations', '--api', url])).toMatchObject({
        code: 1,
        err: 'evalon ledger conversations: the API requires a token: pass --token or set EVALON_API_TOKEN',
      });
      const shown = await cli(['ledger', 'conversation', 'conv-1', '--api', url, '--token', 's3cret']);
      expect(shown.code).toBe(0);
      expect(shown.out).toContain('(3 turns)');
    } finally {
      await guarded.shutdown();
    }
  });

  it('backfills the conversations that are over, each revision once per version', async () => {
    const first = await cli([
      'backfill',
      '--evaluator',
      'repeated-question-evaluator',
      '--conversations',
      '--config',
      configFile,
    ]);
    expect(first.code).toBe(0);
    // conv-1 is the only revision that is over; its agent asked for the order number twice (at most 1).
    expect(first.out).toContain(
      'backfill repeated-question-evaluator (version 1): 1 conversation revisions read; ' +
        '1 evaluated (0 passed, 1 failed',
    );
    const [record] = await store.getConversationEvaluations('conv-1', 'support-agent');
    expect(record).toMatchObject({
      interactionId: support[2].interactionId,
      subject: { kind: 'conversation', conversationId: 'conv-1', agentId: 'support-agent', revision: 1 },
      outcome: { evaluation: { passed: false, explanation: 'asked for it 2 times in 3 turns (at most 1)' } },
    });
    const again = await cli([
      'backfill',
      '--evaluator',
      'repeated-question-evaluator',
      '--conversations',
      '--config',
      configFile,
    ]);
    expect(again.out).toContain('0 evaluated');
    expect(again.out).toContain('1 already had an outcome for this version');
    const shown = await cli(['ledger', 'conversation', 'conv-1', '--api', api]);
    expect(shown.out).toContain('  revision 1  repeated-question-evaluator  fail  asked for it 2 times in 3 turns');
    expect(
      await cli([
        'backfill',
        '--evaluator',
        'interaction-quality-evaluator',
        '--conversations',
        '--config',
        configFile,
      ]),
    ).toMatchObject({
      code: 2,
      err:
        'evalon backfill: evaluator "interaction-quality-evaluator" cannot judge conversations (it judges ' +
        'interactions; backfill it without --conversations)',
    });
  });
});
