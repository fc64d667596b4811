import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MANIFEST_FILE_NAME, readManifest, type ManifestEntry } from '../../core/sync/manifest';
import { closedPort } from '../support/closedPort';
import { SECRET_TOKEN, startMockLab, type MockLab } from '../unit/helpers';
import { nginxBinary, startNginxCache, type NginxCache } from './nginxCache';
import { packAndInstall, transcript, type PackedTool, type RunResult } from './packedTool';

function said(result: RunResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
const CACHE_TOKEN = 'team-cache-token-7c1e92ad04';

/** A loopback address nothing listens on: a cache that cannot be reached. */
async function closedAddress(): Promise<string> {
  return `http://127.0.0.1:${await closedPort()}/team`;
}

describe('lab-data and a team cache that tells the truth: real nginx on loopback (packed tool)', function () {
  this.timeout(120_000);
  let tool: PackedTool;
  let lab: MockLab;
  let nginx: NginxCache;
  let work: string;
  /** Clone A's report folder, synced from the lab with the server as its team cache. */
  let a: string;
  let entries: ManifestEntry[];
  /** What the server was asked during A's sync. */
  let synced: Array<{ method: string }>;
  const noNetrc = (): string => path.join(work, 'no-netrc');

  before(async function () {
    if (!nginxBinary()) {
      console.log('    (skipped: nginx is not installed; npm run bootstrap installs it)');
      this.skip();
    }
    this.timeout(180_000);
    tool = packAndInstall();
    lab = await startMockLab({ reports: 6, pdfBytes: 16 * 1024 });
    nginx = await startNginxCache(CACHE_TOKEN);
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-cachetruth-'));
    a = path.join(work, 'a', 'lab-reports');
    const sync = await tool.run(['sync', a], { env: { ...labEnv(), ...serverEnv() } });
    assert.equal(sync.code, 0, said(sync));
    synced = await nginx.accessLog();
    entries = Object.values(Object.values((await readManifest(a)).labs)[0]!.files);
    assert.ok(entries.length >= 5, `synced ${entries.length}`);
  });
  after(async () => {
    tool?.remove();
    await lab?.close().catch(() => undefined);
    await nginx?.stop();
    if (work) {
      await fs.rm(work, { recursive: true, force: true });
    }
    for (const text of transcript) {
      assert.ok(!text.includes(SECRET_TOKEN), 'no output holds the lab token');
      assert.ok(!text.includes(CACHE_TOKEN), 'no output holds the cache token');
    }
  });

  const serverEnv = (): Record<string, string> => ({
    LAB_DATA_CACHE: nginx.tokenUrl,
    LAB_DATA_CACHE_TOKEN: CACHE_TOKEN,
    NETRC: noNetrc(),
  });
  const labEnv = (): Record<string, string> => ({
    LAB_DATA_TOKEN: SECRET_TOKEN,
    LAB_DATA_URL: lab.baseUrl,
  });
  const onServer = (entry: ManifestEntry): string =>
    path.join(nginx.files, 'sha256', entry.sha256.slice(0, 2), entry.sha256);
  async function clone(name: string): Promise<string> {
    const folder = path.join(work, name, 'lab-reports');
    await fs.mkdir(folder, { recursive: true });
    await fs.copyFile(path.join(a, MANIFEST_FILE_NAME), path.join(folder, MANIFEST_FILE_NAME));
    return folder;
  }
  async function assertRestored(folder: string): Promise<void> {
    for (const entry of entries) {
      assert.equal(sha(await fs.readFile(path.join(folder, entry.file))), entry.sha256, entry.file);
    }
  }
  async function requestsDuring(work: () => Promise<void>) {
    const before = (await nginx.accessLog()).length;
    await work();
    return (await nginx.accessLog()).slice(before);
  }
  const methods = (log: Array<{ method: string }>, method: string): number =>
    log.filter((line) => line.method === method).length;

  it('publishing is never a side effect, and a second pull reads through the personal cache (12)', async () => {
    assert.equal(methods(synced, 'PUT'), 0, 'sync publishes nothing to the team cache');

    const pushed = await requestsDuring(async () => {
      const push = await tool.run(['cache', 'push', a], { env: serverEnv() });
      assert.equal(push.code, 0, said(push));
      assert.match(push.stderr, new RegExp(`pushed ${entries.length} `));
    });
    assert.equal(methods(pushed, 'PUT'), entries.length, 'cache push publishes');

    // One person's own cache, for two clones: the second pull asks the server for nothing.
    const personal = path.join(work, 'personal-cache');
    const first = await requestsDuring(async () => {
      const b = await clone('b');
      const pull = await tool.run(['pull', b], {
        env: { ...serverEnv(), XDG_CACHE_HOME: personal },
      });
      assert.equal(pull.code, 0, said(pull));
      await assertRestored(b);
    });
    assert.equal(methods(first, 'GET'), entries.length, JSON.stringify(first));
    assert.equal(methods(first, 'PUT'), 0);
    const second = await requestsDuring(async () => {
      const c = await clone('c');
      const pull = await tool.run(['pull', c], {
        env: { ...serverEnv(), XDG_CACHE_HOME: personal },
      });
      assert.equal(pull.code, 0, said(pull));
      await assertRestored(c);
      assert.match(pull.stderr, new RegExp(`${entries.length} from the cache`));
    });
    assert.deepEqual(second, [], 'the personal cache served the second pull');
  });

  it('an unreachable or silent cache is not an empty one: status --check-cache exits 4 with the cause (9)', async () => {
    const closed = await closedAddress();
    const down = await tool.run(['status', a, '--check-cache', '--cache', closed], {
      env: { NETRC: noNetrc() },
    });
    assert.equal(down.code, 4, said(down));
    assert.match(down.stderr, /cannot be reached/);
    assert.doesNotMatch(down.stdout, /lacks/);

    const stalled = await requestsDuring(async () => {
      const silent = await tool.run(['status', a, '--check-cache', '--json'], {
        env: { LAB_DATA_CACHE: nginx.stallUrl, LAB_DATA_ANSWER_TIMEOUT: '2', NETRC: noNetrc() },
      });
      assert.equal(silent.code, 4, said(silent));
      assert.match(silent.stderr, /no answer within 2 s/);
      const json = JSON.parse(silent.stdout) as { cache_problem?: string; cache_lacks?: number };
      assert.match(json.cache_problem ?? '', /no answer within 2 s/);
      assert.equal(json.cache_lacks, undefined, 'nothing is said lacking by a cache not asked');
    });
    assert.ok(stalled.length <= 4, `${stalled.length} requests waited on the silent server`);

    const refused = await tool.run(['status', a, '--check-cache', '--cache', nginx.tokenUrl], {
      env: { NETRC: noNetrc() },
    });
    assert.equal(refused.code, 3, said(refused));
    assert.match(refused.stderr, /refused to answer without credentials \(401\)/);
  });

  it('a refused PUT: what was checked is counted, what was not is said, the advice fits the status (11)', async () => {
    const [gone, alsoGone] = entries;
    await fs.rm(onServer(gone!));
    await fs.rm(onServer(alsoGone!));
    const readOnly = await tool.run(['cache', 'push', a, '--cache', nginx.readOnlyUrl], {
      env: { NETRC: noNetrc() },
    });
    assert.equal(readOnly.code, 1, said(readOnly));
    assert.match(
      readOnly.stderr,
      new RegExp(`already there ${entries.length - 2}, not pushed 2 \\(2 refused by the cache\\)`),
    );
    assert.match(readOnly.stderr, /\(403\)/);
    assert.match(readOnly.stderr, /LAB_DATA_CACHE_TOKEN/);
    assert.doesNotMatch(readOnly.stderr, /Free space/);

    const full = await tool.run(['cache', 'push', a, '--cache', nginx.fullUrl], {
      env: { NETRC: noNetrc() },
    });
    assert.equal(full.code, 1, said(full));
    assert.match(full.stderr, new RegExp(`already there ${entries.length - 2}, not pushed 2`));
    assert.match(full.stderr, /\(507\)/);
    assert.match(full.stderr, /Free space/);
    assert.doesNotMatch(full.stderr, /LAB_DATA_CACHE_TOKEN/);

    // A server that cannot be reached checked nothing: said so, exit 4.
    const down = await tool.run(['cache', 'push', a, '--cache', await closedAddress()], {
      env: { NETRC: noNetrc() },
    });
    assert.equal(down.code, 4, said(down));
    assert.match(down.stderr, new RegExp(`not checked ${entries.length}`));

    const refill = await tool.run(['cache', 'push', a], { env: serverEnv() });
    assert.equal(refill.code, 0, said(refill));
    assert.match(refill.stderr, /pushed 2 /);
  });

  it('a same-size corrupt object: cache verify finds it, --repair and a reader replace it (10)', async () => {
    const [, , bad, alsoBad] = entries;
    for (const entry of [bad!, alsoBad!]) {
      const bytes = await fs.readFile(onServer(entry));
      bytes[200] = bytes[200]! ^ 0xff;
      await fs.writeFile(onServer(entry), bytes);
    }
    const found = await tool.run(['cache', 'verify', a], { env: serverEnv() });
    assert.equal(found.code, 1, said(found));
    assert.match(found.stdout, new RegExp(`${bad!.file}.*corrupt`));
    assert.match(found.stdout, new RegExp(`${alsoBad!.file}.*corrupt`));
    assert.match(
      found.stdout,
      new RegExp(`checked ${entries.length}: ${entries.length - 2} good, 2 corrupt`),
    );

    // A reader (a pull, with the lab) takes the good bytes from the lab and puts them back.
    const reader = await clone('reader');
    const pull = await tool.run(['pull', reader], { env: { ...labEnv(), ...serverEnv() } });
    assert.equal(pull.code, 0, said(pull));
    await assertRestored(reader);
    for (const entry of [bad!, alsoBad!]) {
      assert.equal(sha(await fs.readFile(onServer(entry))), entry.sha256, 'replaced by the reader');
    }

    // --repair puts the folder's good bytes in place of a corrupt copy.
    const bytes = await fs.readFile(onServer(bad!));
    bytes[300] = bytes[300]! ^ 0xff;
    await fs.writeFile(onServer(bad!), bytes);
    const repaired = await tool.run(['cache', 'verify', a, '--repair'], { env: serverEnv() });
    assert.equal(repaired.code, 0, said(repaired));
    assert.match(repaired.stdout, /1 repaired/);
    assert.equal(sha(await fs.readFile(onServer(bad!))), bad!.sha256);
    const clean = await tool.run(['cache', 'verify', a, '--json'], { env: serverEnv() });
    assert.equal(clean.code, 0, said(clean));
    assert.equal((JSON.parse(clean.stdout) as { good: number }).good, entries.length);

    const down = await tool.run(['cache', 'verify', a, '--cache', await closedAddress()], {
      env: { NETRC: noNetrc() },
    });
    assert.equal(down.code, 4, said(down));
    assert.match(down.stderr, /cannot be reached/);
  });

  it('files the team cache lacks are said first, then what the lab said (8)', async () => {
    const [gone] = entries;
    await fs.rm(onServer(gone!));
    const noToken = await tool.run(['pull', await clone('lacking')], { env: serverEnv() });
    assert.equal(noToken.code, 3, said(noToken));
    const lacks = noToken.stderr.search(
      /The team cache \S+ lacks these 1 \(someone's `lab-data cache push` did not run\)/,
    );
    assert.ok(lacks >= 0, said(noToken));
    const token = noToken.stderr.search(/token/i);
    assert.ok(token > lacks, said(noToken));

    const env = { ...serverEnv(), ...labEnv() };
    await lab.close();
    const labDown = await tool.run(['pull', await clone('lab-down')], { env });
    assert.equal(labDown.code, 4, said(labDown));
    const first = labDown.stderr.search(/lacks these 1 \(someone's `lab-data cache push`/);
    assert.ok(first >= 0, said(labDown));
    assert.ok(labDown.stderr.search(/reach/i) > first, said(labDown));
  });
});
