/**
 * Replicas sharing one PostgreSQL ledger: each has its own pending spans, a replica id is held by
 * one live process at a time, and the same id opens again once its holder closed or died.
 */
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import {
  REPLICA_LOCK_CLASS,
  replicaLockKey,
  ReplicaIdInUseError,
  resolveReplicaId,
} from '../../../../collector/ledger/postgres/replica.ts';
import { TEST_NODE_FLAGS } from '../../../helpers/test-node-flags.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { adminQuery } from '../../../helpers/postgres.ts';
import { makeRecord, plainSpan, TRACE_A, TRACE_B, TRACE_C } from '../../../helpers/ledger-fixtures.ts';
import { postgresTestStores } from './postgres-test-stores.ts';

const HOLDER = new URL('./postgres-replica-holder.ts', import.meta.url).pathname;
const HEARTBEAT_MS = 100;

describe('PostgreSQL replicas', () => {
  const stores = postgresTestStores({ heartbeatMs: HEARTBEAT_MS });
  const children: Array<ReturnType<typeof spawn>> = [];
  // Registered after the stores' hook: runs before it.
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });
  const freshUrl = async () => (await stores.freshDatabase()).url;
  const open = (url: string, replicaId: string) => stores.open(url, { replicaId });
  const ns = (spans: { attributes: Record<string, unknown> }[]) => spans.map((s) => s.attributes.n);

  it('keeps each replica’s pending spans its own: replay, trace reads and releases', async () => {
    const url = await freshUrl();
    const a = await open(url, 'replica-a');
    const b = await open(url, 'replica-b');
    await a.appendSpans([plainSpan(TRACE_A, 1), plainSpan(TRACE_B, 2)]);
    await b.appendSpans([plainSpan(TRACE_A, 3), plainSpan(TRACE_C, 4)]);

    expect(ns(await a.loadPendingSpans())).toEqual([1, 2]);
    expect(ns(await b.loadPendingSpans())).toEqual([3, 4]);
    expect(ns(await a.loadTraceSpans(TRACE_A))).toEqual([1]);
    expect(ns(await b.loadTraceSpans(TRACE_A))).toEqual([3]);

    // A release drops the releasing replica's rows of the trace only.
    await a.releaseTraces([TRACE_A]);
    expect(await a.loadTraceSpans(TRACE_A)).toEqual([]);
    expect(ns(await b.loadTraceSpans(TRACE_A))).toEqual([3]);

    // Reopened, a replica replays its own rows, not the other's.
    await a.close();
    const again = await open(url, 'replica-a');
    expect(ns(await again.loadPendingSpans())).toEqual([2]);
  });

  it('tells which decided traces other replicas hold: pending spans, recorded interactions', async () => {
    const url = await freshUrl();
    const a = await open(url, 'replica-a');
    const b = await open(url, 'replica-b');
    const c = await open(url, 'replica-c');
    await a.appendSpans([plainSpan(TRACE_A, 1), plainSpan(TRACE_B, 2)]);
    await b.appendSpans([plainSpan(TRACE_A, 3)]);
    await c.appendSpans([plainSpan(TRACE_A, 4)]);
    const recorded = makeRecord({ traceId: TRACE_B, spanId: 'f'.repeat(16), endTime: '2026-03-01T10:00:00Z' });
    await b.putInteractions([recorded]);
    await a.putInteractions([makeRecord({ traceId: TRACE_C, endTime: '2026-03-01T10:00:00Z' })]);

    const found = await a.tracesElsewhere([TRACE_A, TRACE_B, TRACE_C, TRACE_A]);
    expect(found.replicaId).toBe('replica-a');
    expect(Object.fromEntries(found.traces)).toEqual({
      [TRACE_A]: { pendingOn: ['replica-b', 'replica-c'], recorded: [] },
      [TRACE_B]: { pendingOn: [], recorded: [{ interactionId: recorded.interactionId, replicaId: 'replica-b' }] },
    });
    // Its own interactions and spans are not "elsewhere".
    expect(Object.fromEntries((await b.tracesElsewhere([TRACE_B])).traces)).toEqual({
      [TRACE_B]: { pendingOn: ['replica-a'], recorded: [] },
    });
    expect((await a.tracesElsewhere([])).traces.size).toBe(0);
  });

  it('refuses a replica id a live store holds, naming the id and the keys to set', async () => {
    const url = await freshUrl();
    const first = await open(url, 'shared-id');
    await first.appendSpans([plainSpan(TRACE_A, 1)]);
    const second = await open(url, 'shared-id');
    const started = Date.now();
    const refused = second.loadPendingSpans();
    await expect(refused).rejects.toThrow(ReplicaIdInUseError);
    await expect(refused).rejects.toThrow(
      new RegExp(
        `replica id "shared-id" is in use by process ${process.pid} on ${escapeRegExp(hostname())} .*set ` +
          `processors::evaluation::ledger::postgres::replica_id or EVALON_REPLICA_ID`,
      ),
    );
    // Told apart by the holder's heartbeat advancing: within a few heartbeats, not the stale window.
    expect(Date.now() - started).toBeLessThan(HEARTBEAT_MS * 10);
    // The refused store writes nothing; the holder goes on.
    await expect(second.appendSpans([plainSpan(TRACE_A, 2)])).rejects.toThrow(ReplicaIdInUseError);
    expect(ns(await first.loadPendingSpans())).toEqual([1]);
    // Reading the ledger (explain, backfill) does not need the id.
    expect(await second.listInteractions({})).toEqual([]);
  });

  it('opens the same id again once its store closed', async () => {
    const url = await freshUrl();
    const first = await open(url, 'r1');
    await first.appendSpans([plainSpan(TRACE_A, 1)]);
    await first.close();
    const started = Date.now();
    const second = await open(url, 'r1');
    expect(ns(await second.loadPendingSpans())).toEqual([1]);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('opens the same id again at once after its process was killed with SIGKILL', async () => {
    const url = await freshUrl();
    for (let round = 0; round < 2; round += 1) {
      const child = spawn(process.execPath, [...TEST_NODE_FLAGS, HOLDER, url, 'crashy', TRACE_A], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      await new Promise<void>((resolve, reject) => {
        let stderr = '';
        child.stderr!.on('data', (chunk) => (stderr += chunk));
        child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
        child.on('exit', (code) => reject(new Error(`holder exited with ${code}: ${stderr}`)));
      });
      // While it lives, the id is taken.
      const refused = await open(url, 'crashy');
      await expect(refused.loadPendingSpans()).rejects.toThrow(ReplicaIdInUseError);
      await new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGKILL');
      });
      const started = Date.now();
      const reopened = await open(url, 'crashy');
      expect(ns(await reopened.loadPendingSpans())).toEqual(Array(round + 1).fill(7));
      expect(Date.now() - started).toBeLessThan(2_000);
      await reopened.close();
    }
  });

  it('takes over an id whose holder keeps its connection but no longer heartbeats', async () => {
    const url = await freshUrl();
    await (await open(url, 'setup')).loadPendingSpans(); // migrates
    // A holder whose host vanished: the lock is held by a live connection, the heartbeat is old.
    const ghost = new pg.Client({ connectionString: url });
    ghost.on('error', () => {});
    await ghost.connect();
    try {
      await ghost.query('SELECT pg_advisory_lock($1, $2)', [REPLICA_LOCK_CLASS, replicaLockKey('ghost')]);
      await ghost.query(
        "INSERT INTO replicas VALUES ('ghost', 1, 'gone-host', pg_backend_pid(), now() - interval '1 hour', " +
          "now() - interval '1 hour')",
      );
      const store = await open(url, 'ghost');
      await store.appendSpans([plainSpan(TRACE_A, 1)]);
      const [row] = (await adminQuery(url, "SELECT pid, host FROM replicas WHERE replica_id = 'ghost'")).rows;
      expect(row).toEqual({ pid: process.pid, host: hostname() });
    } finally {
      await ghost.end().catch(() => {});
    }
  });

  it('records the replica and its heartbeat in the replicas table', async () => {
    const url = await freshUrl();
    const store = await open(url, 'beating');
    await store.loadPendingSpans();
    const read = async () =>
      (await adminQuery(url, "SELECT heartbeat_at FROM replicas WHERE replica_id = 'beating'")).rows[0]
        .heartbeat_at as Date;
    const first = await read();
    await new Promise((resolve) => setTimeout(resolve, HEARTBEAT_MS * 3));
    expect((await read()).getTime()).toBeGreaterThan(first.getTime());
  });

  it('does not queue again a key another replica records while the enqueue runs', async () => {
    const url = await freshUrl();
    const a = await open(url, 'replica-a');
    const key = { interactionId: 'i-race', evaluatorId: 'reply-length', evaluatorVersion: '1' };
    const first = { ...key, evaluationId: 'e-1', agentId: 'support-agent', roles: [], attempts: 0 };
    const triggered = { ...first, triggeredAt: '2026-03-01T10:00:00Z', source: 'interaction' as const };
    expect(await a.enqueueEvaluations([triggered])).toHaveLength(1);

    // Replica B records the key: its evaluation written and its queue row deleted, not yet committed.
    const b = new pg.Client({ connectionString: url });
    await b.connect();
    try {
      await b.query('BEGIN');
      await b.query(
        `INSERT INTO evaluations (evaluation_id, interaction_id, evaluator_id, evaluator_version, agent_id, outcome,
           completed_at_ms, record) VALUES ('e-1', $1, $2, $3, 'support-agent', 'verdict', 0, '{}')`,
        [key.interactionId, key.evaluatorId, key.evaluatorVersion],
      );
      await b.query('DELETE FROM evaluation_queue WHERE interaction_id = $1', [key.interactionId]);
      // Replica A's catch-up queues the same key meanwhile: its insert waits on the row B deletes.
      const again = a.enqueueEvaluations([{ ...triggered, evaluationId: 'e-2' }]);
      // Watched from outside B's transaction: inside one, pg_stat_activity is read once and kept.
      await pollUntil(
        async () => {
          const { rows } = await adminQuery(
            url,
            `SELECT 1 FROM pg_stat_activity
             WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO evaluation_queue%'`,
          );
          return rows.length > 0 ? true : undefined;
        },
        { what: "replica A's enqueue waiting on replica B's lock" },
      );
      await b.query('COMMIT');
      expect(await again).toEqual([]);
    } finally {
      await b.end();
    }
    expect(await a.countQueuedEvaluations()).toBe(0);
    expect((await a.getEvaluations(key.interactionId)).length).toBe(1);
  });

  it('takes the id from the configuration, else EVALON_REPLICA_ID, else the host name', () => {
    expect(resolveReplicaId('from-config', { EVALON_REPLICA_ID: 'from-env' })).toBe('from-config');
    expect(resolveReplicaId(undefined, { EVALON_REPLICA_ID: 'from-env' })).toBe('from-env');
    expect(resolveReplicaId(undefined, {})).toBe(hostname());
    expect(() => resolveReplicaId('bad\nid', {})).toThrow(/replica id "bad\\nid" is not usable/);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
