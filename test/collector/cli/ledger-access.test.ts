/**
 * `evalon ledger` against an API that needs a token and serves HTTPS with a CA of its own: the
 * token from `--token` or `EVALON_API_TOKEN`, the CA from `--ca-file` or `EVALON_CA_CERTS`; without
 * the token one clear line and exit 1, a refused token and an untrusted certificate said as such.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiServer, type ApiServer } from '../../../collector/api/api-server.ts';
import { main } from '../../../collector/cli/main.ts';
import { createSqliteStore, type SqliteLedgerStore } from '../../../collector/ledger/sqlite/sqlite-store.ts';
import { readServerTls } from '../../../collector/security/tls-files.ts';
import type { InteractionRecord } from '../../../src/model/records.ts';
import { createTestCertificates, type TestCertificates } from '../../helpers/certificates.ts';
import { makeRecord } from '../../helpers/ledger-fixtures.ts';

const TOKEN = 'cli-token-8b9c0d';

async function run(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['ledger', ...args], { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out, err };
}

describe('evalon ledger against a protected API', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evalon-cli-access-'));
  let certs: TestCertificates;
  let store: SqliteLedgerStore;
  let plain: ApiServer;
  let secure: ApiServer;
  let plainUrl: string;
  let secureUrl: string;
  let record: InteractionRecord;

  beforeAll(async () => {
    certs = createTestCertificates();
    store = createSqliteStore({ path: join(dir, 'ledger.db') });
    record = makeRecord({ agentId: 'support-agent', endTime: new Date().toISOString() });
    await store.putInteractions([record]);
    const options = { host: '127.0.0.1', port: 0, store, ready: () => true, bearerToken: TOKEN };
    plain = createApiServer(options);
    const tls = readServerTls({ certFile: certs.server.certFile, keyFile: certs.server.keyFile }, 'test');
    secure = createApiServer({ ...options, tls });
    await Promise.all([plain.start(), secure.start()]);
    plainUrl = `http://127.0.0.1:${plain.address().port}`;
    secureUrl = `https://127.0.0.1:${secure.address().port}`;
  });
  afterAll(async () => {
    await Promise.all([plain.shutdown(), secure.shutdown()]);
    await store.close();
    certs.remove();
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('lists with --token, and shows one interaction and its evaluations', async () => {
    const list = await run(['list', '--api', plainUrl, '--token', TOKEN, '--json']);
    expect(list.err).toEqual([]);
    expect(list.code).toBe(0);
    expect((JSON.parse(list.out.join('\n')) as InteractionRecord[]).map((r) => r.interactionId)).toEqual([
      record.interactionId,
    ]);
    const show = await run(['show', record.interactionId, '--api', plainUrl, '--token', TOKEN]);
    expect(show.code).toBe(0);
    expect(show.out[0]).toBe(`Interaction   ${record.interactionId}`);
    const evaluations = await run(['evaluations', record.interactionId, '--api', plainUrl, '--token', TOKEN]);
    expect(evaluations.code).toBe(0);
  });

  it('takes the token from EVALON_API_TOKEN', async () => {
    vi.stubEnv('EVALON_API_TOKEN', TOKEN);
    expect((await run(['list', '--api', plainUrl])).code).toBe(0);
  });

  it.each([['list'], ['show', 'some-id'], ['evaluations', 'some-id']])(
    'says the API requires a token and exits 1 without one (%s)',
    async (...args) => {
      vi.stubEnv('EVALON_API_TOKEN', '');
      const where = `evalon ledger ${args[0]}`;
      expect(await run([...args, '--api', plainUrl])).toEqual({
        code: 1,
        out: [],
        err: [`${where}: the API requires a token: pass --token or set EVALON_API_TOKEN`],
      });
    },
  );

  it('says which token was refused', async () => {
    expect((await run(['list', '--api', plainUrl, '--token', 'wrong-token'])).err).toEqual([
      "evalon ledger list: the API refused the token of --token (is it the collector's " +
        'extensions::api::auth::bearer_token?)',
    ]);
    vi.stubEnv('EVALON_API_TOKEN', 'wrong-token');
    expect((await run(['list', '--api', plainUrl])).err[0]).toContain('the API refused the token of EVALON_API_TOKEN');
  });

  it('reads an https:// API that --ca-file or EVALON_CA_CERTS trusts', async () => {
    const withFlag = await run(['list', '--api', secureUrl, '--token', TOKEN, '--ca-file', certs.ca.certFile]);
    expect(withFlag.err).toEqual([]);
    expect(withFlag.out.join('\n')).toContain(record.interactionId);
    vi.stubEnv('EVALON_CA_CERTS', certs.ca.certFile);
    vi.stubEnv('EVALON_API_TOKEN', TOKEN);
    const withEnv = await run(['list', '--api', secureUrl]);
    expect(withEnv.err).toEqual([]);
    expect(withEnv.code).toBe(0);
  });

  it('says when the https:// API has a certificate it does not trust, and when the CA file is missing', async () => {
    vi.stubEnv('EVALON_CA_CERTS', '');
    expect(await run(['list', '--api', secureUrl, '--token', TOKEN])).toEqual({
      code: 1,
      out: [],
      err: [
        `evalon ledger list: the certificate of the Evalon API at ${secureUrl} is not trusted ` +
          '(UNABLE_TO_VERIFY_LEAF_SIGNATURE; pass --ca-file or set EVALON_CA_CERTS to the CA that signed it)',
      ],
    });
    const missing = join(dir, 'no-such-ca.pem');
    expect(await run(['list', '--api', secureUrl, '--ca-file', missing])).toEqual({
      code: 2,
      out: [],
      err: [`evalon ledger list: --ca-file names ${missing}, which cannot be read (ENOENT)`],
    });
  });
});
