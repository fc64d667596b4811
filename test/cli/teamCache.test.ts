import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MANIFEST_FILE_NAME, readManifest, type ManifestEntry } from '../../core/sync/manifest';
import { tokenFingerprint } from '../mock/server';
import { SECRET_TOKEN, startMockLab, type MockLab } from '../unit/helpers';
import { nginxBinary, startNginxCache, type NginxCache } from './nginxCache';
import { packAndInstall, transcript, type PackedTool, type RunResult } from './packedTool';

function said(result: RunResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
const CACHE_TOKEN = 'team-cache-token-5d41402abc';

/** How many times `text` says something of the team cache. */
function mentions(text: string): number {
  return text.match(/The team cache /g)?.length ?? 0;
}

describe('lab-data with a team cache on a server: real nginx on loopback (packed tool)', function () {
  // A hang detector, not a speed claim: the 3,000-file check took over 120 s at load 40.
  this.timeout(300_000);
  let tool: PackedTool;
  let lab: MockLab;
  let nginx: NginxCache;
  let work: string;
  /** Clone A's report folder, synced from the lab with the server as its cache. */
  let a: string;
  let entries: ManifestEntry[];
  /** No ~/.netrc of the machine's may answer for the server. */
  const noNetrc = (): string => path.join(work, 'no-netrc');

  before(async function () {
    if (!nginxBinary()) {
      // scripts/bootstrap.mjs installs it; a machine set up otherwise says so rather than failing.
      console.log('    (skipped: nginx is not installed; npm run bootstrap installs it)');
      this.skip();
    }
    this.timeout(180_000);
    tool = packAndInstall();
    lab = await startMockLab({ reports: 8, pdfBytes: 64 * 1024 });
    nginx = await startNginxCache(CACHE_TOKEN);
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-teamcache-'));
    a = path.join(work, 'a', 'lab-reports');
    const sync = await tool.run(['sync', a], {
      env: {
        LAB_DATA_TOKEN: SECRET_TOKEN,
        LAB_DATA_URL: lab.baseUrl,
        LAB_DATA_CACHE: nginx.tokenUrl,
        LAB_DATA_CACHE_TOKEN: CACHE_TOKEN,
        NETRC: noNetrc(),
      },
    });
    assert.equal(sync.code, 0, said(sync));
    // A sync publishes nothing; cache push is the act that fills the server.
    const push = await tool.run(['cache', 'push', a], {
      env: { LAB_DATA_CACHE: nginx.tokenUrl, LAB_DATA_CACHE_TOKEN: CACHE_TOKEN, NETRC: noNetrc() },
    });
    assert.equal(push.code, 0, said(push));
    entries = Object.values(Object.values((await readManifest(a)).labs)[0]!.files);
    assert.ok(entries.length >= 6, `synced ${entries.length}`);
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
  const onServer = (entry: ManifestEntry): string =>
    path.join(nginx.files, 'sha256', entry.sha256.slice(0, 2), entry.sha256);

  /** A fresh clone: the manifest alone. */
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

  it('cache push fills the server (PUT, the folder layout); status --check-cache gates on it with one HEAD a file', async () => {
    for (const entry of entries) {
      assert.equal(sha(await fs.readFile(onServer(entry))), entry.sha256, entry.file);
    }
    const green = await tool.run(['status', a, '--check-cache'], { env: serverEnv() });
    assert.equal(green.code, 0, said(green));
    assert.match(green.stdout, new RegExp(`The cache ${nginx.tokenUrl} holds every recorded file`));

    const [gone, alsoGone] = entries;
    await fs.rm(onServer(gone!));
    await fs.rm(onServer(alsoGone!));
    const before = (await nginx.accessLog()).length;
    const red = await tool.run(['status', a, '--json', '--check-cache'], { env: serverEnv() });
    assert.equal(red.code, 1, said(red));
    assert.equal((JSON.parse(red.stdout) as { cache_lacks: number }).cache_lacks, 2);
    const asked = (await nginx.accessLog()).slice(before);
    // A server that offers no listing: one GET of its folder (refused), then one HEAD a file.
    assert.deepEqual(
      asked.filter((line) => line.method !== 'HEAD').map((line) => `${line.method} ${line.path}`),
      ['GET /team/sha256/'],
      'status only looks: a listing asked for once, then HEAD',
    );
    assert.equal(
      asked.filter((line) => line.method === 'HEAD').length,
      new Set(entries.map((entry) => entry.sha256)).size,
    );
  });

  it('status --check-cache of 3,000 files reads a server that lists its folders (nginx autoindex_format json): one request a folder, not one a file, and the same verdict as HEADs on what it lacks, a copy of another size included', async () => {
    // A folder whose manifest records 3,000 files, held by the server only (status needs no PDF).
    const big = path.join(work, 'big', 'lab-reports');
    const held = (entry: { sha256: string }): string =>
      path.join(nginx.files, 'sha256', entry.sha256.slice(0, 2), entry.sha256);
    await fs.mkdir(big, { recursive: true });
    // The manifest as committed (docs/lockfile.md): sections by address, their reports by id.
    type Recorded = { file: string; sha256: string; bytes: number };
    const manifest = JSON.parse(await fs.readFile(path.join(a, MANIFEST_FILE_NAME), 'utf8')) as {
      labs: Record<string, { reports: Record<string, Recorded> }>;
    };
    const section = Object.values(manifest.labs)[0]!;
    const model = Object.values(section.reports)[0]!;
    section.reports = {};
    const made: Array<Recorded & { report_id: string }> = [];
    for (let i = 0; i < 3000; i++) {
      const bytes = Buffer.from(`%PDF-1.4 bench file ${i}\n`);
      const id = `RPT-2099-${String(i).padStart(6, '0')}`;
      const entry = { ...model, file: `${id}.pdf`, sha256: sha(bytes), bytes: bytes.length };
      made.push({ ...entry, report_id: id });
      section.reports[id] = entry;
      const target = held(entry);
      await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o777 });
      await fs.writeFile(target, bytes, { mode: 0o644 });
    }
    await fs.writeFile(
      path.join(big, MANIFEST_FILE_NAME),
      `${JSON.stringify(manifest, null, 2)}\n`,
    );
    const recorded = made.length;
    // The server lacks two, and holds a third at another size.
    await fs.rm(held(made[10]!));
    await fs.rm(held(made[2000]!));
    await fs.appendFile(held(made[20]!), 'more');
    const lacking = [made[10]!, made[20]!, made[2000]!].map((entry) => entry.report_id).sort();
    const check = async (
      url: string,
    ): Promise<{ lacks: string[]; asked: number; heads: number }> => {
      const before = (await nginx.accessLog()).length;
      const run = await tool.run(['status', big, '--json', '--check-cache'], {
        env: { ...serverEnv(), LAB_DATA_CACHE: url },
      });
      assert.equal(run.code, 1, said(run));
      const json = JSON.parse(run.stdout) as {
        cache_lacks: number;
        entries: Array<{ report_id: string; cached: boolean }>;
      };
      const lacks = json.entries
        .filter((entry) => !entry.cached)
        .map((entry) => entry.report_id)
        .sort();
      assert.equal(json.cache_lacks, lacks.length);
      const asked = (await nginx.accessLog()).slice(before);
      return {
        lacks,
        asked: asked.length,
        heads: asked.filter((line) => line.method === 'HEAD').length,
      };
    };
    const listed = await check(nginx.listingUrl);
    const headed = await check(nginx.tokenUrl);
    // Every file is missing from this folder; the cache lacks exactly these three.
    assert.deepEqual(listed.lacks, lacking);
    assert.deepEqual(headed.lacks, lacking, 'one HEAD a file says the same');
    assert.equal(headed.heads, recorded);
    assert.equal(listed.heads, 0, 'no HEAD where the folders are listed');
    assert.ok(listed.asked <= 1 + 256, `${listed.asked} requests for ${recorded} files`);
  });

  it('bad servers and addresses: a clear message once, the run goes on with the lab, nothing wrong written', async () => {
    // The two files status found lacking are still lacking: each pull below needs the lab for them.
    const labEnv = { LAB_DATA_TOKEN: SECRET_TOKEN, LAB_DATA_URL: lab.baseUrl, NETRC: noNetrc() };
    const pullWith = async (name: string, cache: string, extra: Record<string, string> = {}) => {
      const folder = await clone(name);
      const result = await tool.run(['pull', folder], {
        env: { ...labEnv, LAB_DATA_CACHE: cache, ...extra },
      });
      return { folder, result };
    };

    // A wrong file (same size, another hash) and a short one on the server: neither used.
    const [, , wrong, short] = entries;
    const wrongBytes = await fs.readFile(onServer(wrong!));
    wrongBytes[100] = wrongBytes[100]! ^ 0xff;
    await fs.writeFile(onServer(wrong!), wrongBytes);
    await fs.writeFile(onServer(short!), (await fs.readFile(onServer(short!))).subarray(0, 1000));
    const checked = await pullWith('checked', nginx.tokenUrl, {
      LAB_DATA_CACHE_TOKEN: CACHE_TOKEN,
    });
    assert.equal(checked.result.code, 0, said(checked.result));
    await assertRestored(checked.folder);
    assert.match(
      checked.result.stderr,
      new RegExp(`copy of ${wrong!.sha256.slice(0, 12)}… is not that file \\(another SHA-256\\)`),
    );
    assert.match(
      checked.result.stderr,
      new RegExp(`copy of ${short!.sha256.slice(0, 12)}… is not that file \\(another size\\)`),
    );

    // Without the cache's token: 401, said once; every file from the lab.
    const noToken = await pullWith('no-token', nginx.tokenUrl);
    assert.equal(noToken.result.code, 0, said(noToken.result));
    await assertRestored(noToken.folder);
    assert.equal(mentions(noToken.result.stderr), 1, said(noToken.result));
    assert.match(noToken.result.stderr, /refused to answer without credentials \(401\)/);

    // A server that stalls: one answer timeout (2 s here), said once, then the lab.
    const started = Date.now();
    const stalled = await pullWith('stalled', nginx.stallUrl, { LAB_DATA_ANSWER_TIMEOUT: '2' });
    const seconds = (Date.now() - started) / 1000;
    assert.equal(stalled.result.code, 0, said(stalled.result));
    await assertRestored(stalled.folder);
    assert.equal(mentions(stalled.result.stderr), 1, said(stalled.result));
    assert.match(stalled.result.stderr, /no answer within 2 s/);
    assert.ok(seconds < 15, `took ${seconds} s`);

    // A redirect to another host: not followed, its credentials not sent there.
    const logged = (await nginx.accessLog()).length;
    const redirected = await pullWith('redirected', nginx.redirectUrl, {
      LAB_DATA_CACHE_TOKEN: CACHE_TOKEN,
    });
    assert.equal(redirected.result.code, 0, said(redirected.result));
    await assertRestored(redirected.folder);
    assert.match(redirected.result.stderr, /redirects to localhost:\d+, which is not followed/);
    const afterRedirect = (await nginx.accessLog()).slice(logged);
    assert.ok(
      afterRedirect.every((line) => line.path.startsWith('/redirect/')),
      JSON.stringify(afterRedirect),
    );

    // A sign-in page answering 200: never taken for a report.
    const login = await pullWith('login', nginx.loginUrl);
    assert.equal(login.result.code, 0, said(login.result));
    await assertRestored(login.folder);
    assert.match(login.result.stderr, /web page instead of files \(a sign-in page\?\)/);

    // Read-only: reads serve; a pull never writes to the server, so nothing is refused.
    await fs.rm(onServer(entries[4]!));
    const readOnly = await pullWith('read-only', nginx.readOnlyUrl);
    assert.equal(readOnly.result.code, 0, said(readOnly.result));
    await assertRestored(readOnly.folder);
    assert.equal(mentions(readOnly.result.stderr), 0, said(readOnly.result));
    const pushReadOnly = await tool.run(['cache', 'push', a, '--cache', nginx.readOnlyUrl]);
    assert.equal(pushReadOnly.code, 1, said(pushReadOnly));
    assert.match(pushReadOnly.stderr, /refuses writes \(403\).*No write was tried after it/);

    // A server that takes a PUT and keeps nothing: the push says so.
    const dropped = await tool.run(['cache', 'push', a, '--cache', nginx.dropUrl]);
    assert.equal(dropped.code, 1, said(dropped));
    assert.match(dropped.stderr, /accepted a file but does not hold it afterwards/);

    // Addresses refused before any connection (exit 2): a token in it, http:// to another machine, a way out.
    const port = new URL(nginx.tokenUrl).port;
    for (const [address, words] of [
      [`http://ci:${CACHE_TOKEN}@127.0.0.1:${port}/team`, /use LAB_DATA_CACHE_TOKEN/],
      [`http://127.0.0.1:${port}/team?token=${CACHE_TOKEN}`, /use LAB_DATA_CACHE_TOKEN/],
      ['http://10.255.255.1/team', /must use https:\/\/ so its token is never sent unencrypted/],
      [`http://127.0.0.1:${port}/team/../readonly`, /would leave its prefix/],
      [`http://127.0.0.1:${port}/team/%2E%2E/readonly`, /would leave its prefix/],
    ] as const) {
      const before = (await nginx.accessLog()).length;
      const refused = await tool.run(
        ['pull', await clone(`refused-${before}-${address.length}`), '--cache', address],
        {
          env: labEnv,
        },
      );
      assert.equal(refused.code, 2, said(refused));
      assert.match(refused.stderr, words);
      assert.equal((await nginx.accessLog()).length, before, 'nothing was asked');
    }

    // The pull with the token put back what the lab gave for the bad copies; a push from A fills the rest.
    for (const entry of [wrong!, short!]) {
      assert.equal(
        sha(await fs.readFile(onServer(entry))),
        entry.sha256,
        'the bad copy was replaced',
      );
    }
    const push = await tool.run(['cache', 'push', a], { env: serverEnv() });
    assert.equal(push.code, 0, said(push));
    // The two status removed and the one removed above: pulls wrote none of them back.
    assert.match(push.stderr, /pushed 3 \([0-9.]+ KB\), already there \d+, not pushed 0\./);
    const gate = await tool.run(['status', a, '--check-cache'], { env: serverEnv() });
    assert.equal(gate.code, 0, said(gate));
  });

  it('two clones and a fresh CI folder restore from the one server with the lab stopped, an amended report as recorded', async () => {
    const amended = entries[0]!;
    lab.server.amendReport(amended.report_id);
    const address = lab.baseUrl;
    await lab.close();
    const b = await clone('b');
    const pullB = await tool.run(['pull', b], { env: serverEnv() });
    assert.equal(pullB.code, 0, said(pullB));
    await assertRestored(b);
    const ci = await clone('ci');
    const pullCi = await tool.run(['pull', ci], {
      env: { ...serverEnv(), LAB_DATA_TOKEN: SECRET_TOKEN, LAB_DATA_URL: address },
    });
    assert.equal(pullCi.code, 0, said(pullCi));
    await assertRestored(ci);
    assert.equal(
      sha(await fs.readFile(path.join(ci, amended.file))),
      amended.sha256,
      'the revision recorded, which the lab no longer serves',
    );
    // Basic credentials from a .netrc (its machine is the server's host): the same files.
    const netrc = path.join(work, 'netrc-file');
    await fs.writeFile(
      netrc,
      `machine 127.0.0.1\n  login ci\n  password ${nginx.basicPassword}\n`,
      {
        mode: 0o600,
      },
    );
    const viaNetrc = await clone('netrc');
    const pullNetrc = await tool.run(['pull', viaNetrc, '-v'], {
      env: { LAB_DATA_CACHE: nginx.basicUrl, NETRC: netrc },
    });
    assert.equal(pullNetrc.code, 0, said(pullNetrc));
    await assertRestored(viaNetrc);
    assert.match(pullNetrc.stderr, /with credentials from .*netrc/);
    assert.ok(!pullNetrc.stderr.includes(nginx.basicPassword));

    const info = await tool.run(['cache'], { env: serverEnv() });
    assert.equal(info.code, 0, said(info));
    assert.match(info.stdout, /a team cache on a server that answers/);
  });

  it('a .netrc others may read, or its default entry, sends the cache no credentials and says so, naming the file and why', async () => {
    const netrc = path.join(work, 'netrc-open');
    const sent = async (
      env: Record<string, string>,
    ): Promise<{ run: RunResult; auth: string[] }> => {
      const before = (await nginx.accessLog()).length;
      const run = await tool.run(['cache'], { env: { LAB_DATA_CACHE: nginx.basicUrl, ...env } });
      const auth = (await nginx.accessLog()).slice(before).map((line) => line.authorization);
      assert.ok(auth.length > 0, `the server was asked\n${said(run)}`);
      return { run, auth };
    };
    await fs.writeFile(netrc, `machine 127.0.0.1 login ci password ${nginx.basicPassword}\n`);
    await fs.chmod(netrc, 0o644);
    const open = await sent({ NETRC: netrc });
    assert.deepEqual(new Set(open.auth), new Set(['-']), 'no credentials from a 0644 .netrc');
    assert.equal(open.run.code, 1, said(open.run));
    assert.ok(
      open.run.stderr.includes(`${netrc} is readable by others (mode 0644): chmod 600 ${netrc}`),
      said(open.run),
    );
    await fs.chmod(netrc, 0o620);
    const writable = await sent({ NETRC: netrc });
    assert.deepEqual(new Set(writable.auth), new Set(['-']));
    assert.match(writable.run.stderr, /is writable by others \(mode 0620\): chmod 600/);

    await fs.chmod(netrc, 0o600);
    const own = await sent({ NETRC: netrc });
    assert.equal(own.run.code, 0, said(own.run));
    assert.ok(
      own.auth.every((value) => value.startsWith('Basic ')),
      'a private .netrc is used',
    );
    assert.doesNotMatch(own.run.stderr, /netrc/);

    await fs.writeFile(netrc, `default login ci password ${nginx.basicPassword}\n`);
    const byDefault = await sent({ NETRC: netrc });
    assert.deepEqual(new Set(byDefault.auth), new Set(['-']), 'a default entry is not used');
    assert.equal(byDefault.run.code, 1, said(byDefault.run));
    assert.ok(
      byDefault.run.stderr.includes(
        `${netrc}: its default entry is not used for the team cache (a default login would go to any host); add "machine 127.0.0.1" with its login and password.`,
      ),
      said(byDefault.run),
    );
    assert.ok(!`${byDefault.run.stderr}${open.run.stderr}`.includes(nginx.basicPassword));
  });

  it("the lab's token never reaches the cache server, and the cache's never reaches the lab", async () => {
    const log = await nginx.accessLog();
    assert.ok(log.length > entries.length, `${log.length} requests logged`);
    for (const line of log) {
      assert.ok(!line.authorization.includes(SECRET_TOKEN), `${line.method} ${line.path}`);
      assert.ok(
        line.authorization === `Bearer ${CACHE_TOKEN}` ||
          line.authorization === '-' ||
          (line.path.startsWith('/basic/') && line.authorization.startsWith('Basic ')),
        `${line.method} ${line.path}: ${line.authorization.slice(0, 12)}`,
      );
    }
    assert.ok(log.some((line) => line.authorization === `Bearer ${CACHE_TOKEN}`));
    const cacheFingerprint = tokenFingerprint(CACHE_TOKEN);
    assert.ok(lab.server.requests.length > 0);
    for (const request of lab.server.requests) {
      assert.notEqual(request.tokenFingerprint, cacheFingerprint, request.path);
    }
    assert.ok(
      !lab.server.credentialsSeen.has('(unknown)'),
      [...lab.server.credentialsSeen.keys()].join(),
    );
  });
});
