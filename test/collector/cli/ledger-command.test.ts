import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiServer, type ApiServer } from '../../../collector/api/api-server.ts';
import { runLedgerCommand } from '../../../collector/cli/ledger-command.ts';
import { createSqliteStore, type SqliteLedgerStore } from '../../../collector/ledger/sqlite/sqlite-store.ts';
import type { InteractionRecord } from '../../../src/model/records.ts';
import { makeRecord } from '../../helpers/ledger-fixtures.ts';

async function run(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runLedgerCommand(args, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out, err };
}

describe('evalon ledger', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evalon-cli-'));
  let store: SqliteLedgerStore;
  let server: ApiServer;
  let api: string;
  let travel: InteractionRecord;
  let refund: InteractionRecord;

  beforeAll(async () => {
    store = createSqliteStore({ path: join(dir, 'ledger.db') });
    const now = Date.now();
    travel = makeRecord({
      endTime: new Date(now - 60_000).toISOString(),
      agentId: 'travel-agent',
      conversationId: 'conv-1',
      finalResponseText:
        'Booked TP541 to Lisbon.\nYour confirmation code is XK42 and the flight leaves at 09:40 from Berlin.',
    });
    refund = makeRecord({
      endTime: new Date(now - 3 * 86_400_000).toISOString(),
      agentId: 'refund-agent',
      agentName: 'Refunds',
      roles: [],
      conversationId: 'conv-2',
      flowId: `${travel.interactionId}`,
      failed: true,
      failureSummary: 'TimeoutError',
      finalResponseText: '',
      transcript: [
        { type: 'message', role: 'user', content: 'Refund order 17\nplease' },
        {
          type: 'tool_call',
          name: 'refund',
          callId: 'toolu_9',
          arguments: { order: 17 },
          error: 'payment service timed out',
        },
        { type: 'agent_call', agentId: 'payments', interactionId: 'abc-def' },
      ],
      toolCalls: [{ name: 'refund', callId: 'toolu_9', arguments: { order: 17 }, error: 'payment service timed out' }],
      usage: {},
      completion: 'timeout',
    });
    await store.putInteractions([travel, refund]);
    server = createApiServer({ host: '127.0.0.1', port: 0, store, ready: () => true });
    await server.start();
    api = `http://127.0.0.1:${server.address().port}`;
  });
  afterAll(async () => {
    await server.shutdown();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  describe('list', () => {
    it('prints an aligned table, newest first, with the final text on one truncated line', async () => {
      const { code, out, err } = await run(['list', '--api', api]);
      expect({ code, err }).toEqual({ code: 0, err: [] });
      expect(out).toHaveLength(3);
      expect(out[0]).toMatch(/^TIME +INTERACTION +AGENT +FAILED +TOOLS +FINAL RESPONSE$/);
      expect(out[1]).toContain(travel.interactionId);
      expect(out[1]).toMatch(/travel-agent +no +1 +Booked TP541 to Lisbon\. Your confirmation code is XK42 and …$/);
      expect(out[2]).toContain(refund.interactionId);
      expect(out[2]).toMatch(/refund-agent +yes +1$/);
      // Columns line up: each header title starts where its values start.
      for (const title of ['INTERACTION', 'AGENT', 'FAILED', 'TOOLS']) {
        const column = out[0].indexOf(title);
        expect(out[1][column - 1]).toBe(' ');
        expect(out[1][column]).not.toBe(' ');
        expect(out[2][column]).not.toBe(' ');
      }
      expect(out[1].slice(0, 20)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/);
    });

    it('passes the filters to the API', async () => {
      expect((await run(['list', '--api', api, '--agent', 'refund-agent'])).out.slice(1).join('\n')).not.toContain(
        travel.interactionId,
      );
      expect((await run(['list', '--api', api, '--conversation', 'conv-1'])).out).toHaveLength(2);
      const recent = await run(['list', '--api', api, '--since', '24h']);
      expect(recent.out).toHaveLength(2);
      expect(recent.out[1]).toContain(travel.interactionId);
      expect((await run(['list', '--api', api, '--limit', '1'])).out).toHaveLength(2);
      expect((await run(['list', '--api', api, '--agent', 'nobody'])).out).toEqual(['no interactions found']);
    });

    it('prints the records as JSON with --json', async () => {
      const { code, out } = await run(['list', '--json', '--api', api]);
      expect(code).toBe(0);
      expect(JSON.parse(out.join('\n'))).toEqual([travel, refund]);
    });

    it('uses EVALON_API_URL when --api is not given', async () => {
      vi.stubEnv('EVALON_API_URL', `${api}/`);
      expect((await run(['list', '--json'])).code).toBe(0);
    });
  });

  describe('show', () => {
    it('prints a record readably', async () => {
      const { code, out } = await run(['show', refund.interactionId, '--api', api]);
      expect(code).toBe(0);
      const text = out.join('\n');
      expect(out[0]).toBe(`Interaction   ${refund.interactionId}`);
      expect(text).toContain('Agent         refund-agent (Refunds)');
      expect(text).toContain('Roles         (none)');
      expect(text).toContain('Conversation  conv-2');
      expect(text).toContain(`Flow          ${travel.interactionId}`);
      expect(text).toContain(`Time          ${refund.startTime} → ${refund.endTime} (1500 ms, completion: timeout)`);
      expect(text).toContain('Status        failed: TimeoutError');
      expect(text).toContain('Model         anthropic claude-sonnet-4-5');
      expect(text).toContain('Usage         (not reported)');
      expect(text).toContain('Input\n  user: Book me a flight to Lisbon');
      expect(text).toContain(
        [
          'Transcript',
          '  1. user: Refund order 17',
          '           please',
          '  2. tool call refund (toolu_9) {"order":17}',
          '     error: payment service timed out',
          '  3. agent call payments → abc-def',
        ].join('\n'),
      );
      expect(text).toContain('Final response\n  (none)');
    });

    it('shows tool results, usage and the final response', async () => {
      const { out } = await run(['show', travel.interactionId, '--api', api]);
      const text = out.join('\n');
      expect(text).toContain('Status        ok');
      expect(text).toContain('Usage         1200 input tokens, 80 output tokens');
      expect(text).toContain(
        '  2. tool call search_flights (toolu_1) {"to":"LIS"}\n     result: {"flights":["TP541"]}',
      );
      expect(text).toContain('Final response\n  Booked TP541 to Lisbon.\n  Your confirmation code is XK42');
    });

    it('prints the record as JSON with --json', async () => {
      const { code, out } = await run(['show', travel.interactionId, '--json', '--api', api]);
      expect(code).toBe(0);
      expect(JSON.parse(out.join('\n'))).toEqual(travel);
    });

    it('says when an interaction is not found, exit 1', async () => {
      const id = `${'0'.repeat(32)}-${'0'.repeat(16)}`;
      expect(await run(['show', id, '--api', api])).toEqual({ code: 1, out: [], err: [`interaction ${id} not found`] });
    });
  });

  describe('errors', () => {
    it.each([
      [['list', '--limit', 'ten'], 'evalon ledger list: --limit must be an integer from 1 to 1000 (got "ten")'],
      [['list', '--limit', '5000'], 'evalon ledger list: --limit must be an integer from 1 to 1000 (got "5000")'],
      [
        ['list', '--since', 'last week'],
        'evalon ledger list: --since must be an ISO-8601 time or a duration such as 30m, 24h or 7d (got "last week")',
      ],
      [['list', '--bogus'], 'evalon ledger list: unknown option --bogus (see evalon ledger --help)'],
      [['list', '--agent'], 'evalon ledger list: --agent needs a value'],
      [['list', '--json=yes'], 'evalon ledger list: --json takes no value'],
      [['list', 'extra'], 'evalon ledger list: unexpected argument "extra"'],
      [['show'], 'evalon ledger show: missing <interactionId>'],
      [['show', 'a', 'b'], 'evalon ledger show: unexpected argument "b"'],
      [['show', 'a', '--agent', 'x'], 'evalon ledger show: --agent applies to list only'],
      [['list', '--api', 'not a url'], 'evalon ledger list: --api must be an http(s) URL (got "not a url")'],
      [['list', '--api', 'ftp://host'], 'evalon ledger list: --api must be an http(s) URL (got "ftp://host")'],
      [
        ['evaluate'],
        'evalon ledger: unknown subcommand "evaluate" ' +
          '(expected list, show, evaluations, conversations, conversation or prune)',
      ],
    ])('%j is bad input: one line, exit 2', async (args, message) => {
      expect(await run([...args, ...(args.includes('--api') ? [] : ['--api', api])])).toEqual({
        code: 2,
        out: [],
        err: [message],
      });
    });

    it('names EVALON_API_URL when it is not a URL', async () => {
      vi.stubEnv('EVALON_API_URL', 'nonsense');
      expect(await run(['list'])).toEqual({
        code: 2,
        out: [],
        err: ['evalon ledger list: EVALON_API_URL must be an http(s) URL (got "nonsense")'],
      });
    });

    it('prints usage for --help (exit 0) and when no subcommand is given (exit 2)', async () => {
      const help = await run(['--help']);
      expect(help.code).toBe(0);
      expect(help.out[0]).toContain('evalon ledger list');
      expect((await run(['list', '--help'])).code).toBe(0);
      const none = await run([]);
      expect(none.code).toBe(2);
      expect(none.err[0]).toContain('Usage:');
    });

    it('names the URL when the API is unreachable, exit 1', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      const { code, out, err } = await run(['list', '--api', `http://127.0.0.1:${port}`]);
      expect({ code, out }).toEqual({ code: 1, out: [] });
      expect(err).toEqual([
        `evalon ledger list: cannot reach the Evalon API at http://127.0.0.1:${port} (ECONNREFUSED; is the ` +
          `collector running? set --api or EVALON_API_URL)`,
      ]);
    });

    it('reports an API that answers something else, exit 1', async () => {
      const other = createServer((_req, res) => res.writeHead(502).end('<html>bad gateway</html>'));
      await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      try {
        const { code, err } = await run(['list', '--api', url]);
        expect(code).toBe(1);
        expect(err).toEqual([
          `evalon ledger list: ${url}/api/v1/interactions answered 502 with a body that is not JSON (is it the ` +
            `Evalon API?)`,
        ]);
      } finally {
        await new Promise((resolve) => other.close(resolve));
      }
    });
  });
});
