import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MANIFEST_FILE_NAME } from '../../core/sync/manifest';
import { startMockLab, type MockLab } from '../unit/helpers';
import { MockLabHost, MockLabServer, tokenFingerprint } from '../mock/server';
import { makeTestCertificates } from '../support/certificates';
import { startForwardProxy } from '../support/forwardProxy';
import { packAndInstall, transcript, type PackedTool, type RunResult } from './packedTool';

/** Two labs' tokens: each lab accepts both, so a token sent where it should not go is never hidden by a 401. */
const TOKEN_A = 'tok_LAB_A_SECRET_0123456789abcdef_DO_NOT_LEAK';
const TOKEN_B = 'tok_LAB_B_SECRET_fedcba9876543210_DO_NOT_LEAK';
const BOTH = { [TOKEN_A]: { label: "lab A's token" }, [TOKEN_B]: { label: "lab B's token" } };

function said(result: RunResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

/** Which tokens reached a lab since the last call (by fingerprint: A, B, or none). */
function tokensSeen(lab: MockLabServer): string[] {
  const names = new Map([
    [tokenFingerprint(TOKEN_A), 'A'],
    [tokenFingerprint(TOKEN_B), 'B'],
  ]);
  return [
    ...new Set(
      lab
        .takeRequests()
        .map((request) =>
          request.tokenFingerprint === undefined
            ? 'none'
            : (names.get(request.tokenFingerprint) ?? 'other'),
        ),
    ),
  ].sort();
}

/** The variable name a lab's host and port give (`127.0.0.1:47101` → `127_0_0_1_47101`). */
function named(baseUrl: string): string {
  return new URL(baseUrl).host.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase();
}

/**
 * Issue 47, item 3: a token goes only to the address a variable pairs it with. Two labs, each
 * logging which token reached it; every rule in each command family (pull, status --remote, sync,
 * a listing): nothing is sent where it may not go.
 */
describe('lab-data: a token goes only to the address a variable pairs it with (two labs, packed tool)', function () {
  this.timeout(90_000);
  let tool: PackedTool;
  let labA: MockLab;
  let labB: MockLab;
  let work: string;
  /** A folder synced from both labs, its sections renamed "Lab A" and "Lab B". */
  let both: string;
  let count = 0;

  before(async function () {
    this.timeout(180_000);
    tool = packAndInstall();
    labA = await startMockLab({ reports: 6, tokens: BOTH });
    labB = await startMockLab({ reports: 6, tokens: BOTH });
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-tokens-'));
    both = path.join(work, 'both');
    const fromA = await tool.run(['sync', both, '--json'], {
      env: { LAB_DATA_TOKEN: TOKEN_A, LAB_DATA_URL: labA.baseUrl },
    });
    assert.equal(fromA.code, 0, said(fromA));
    const fromB = await tool.run(['sync', both, '--template', 'b/${report_id}.pdf', '--json'], {
      env: { LAB_DATA_TOKEN: TOKEN_B, LAB_DATA_URL: labB.baseUrl },
    });
    assert.equal(fromB.code, 0, said(fromB));
    const manifest = JSON.parse(await fs.readFile(path.join(both, MANIFEST_FILE_NAME), 'utf8')) as {
      labs: Record<string, { name: string }>;
    };
    manifest.labs[new URL(labA.baseUrl).origin]!.name = 'Lab A';
    manifest.labs[new URL(labB.baseUrl).origin]!.name = 'Lab B';
    await fs.writeFile(path.join(both, MANIFEST_FILE_NAME), JSON.stringify(manifest, null, 2));
  });
  after(async () => {
    tool?.remove();
    await labA?.close();
    await labB?.close();
    await fs.rm(work, { recursive: true, force: true });
  });
  beforeEach(() => {
    labA.server.takeRequests();
    labB.server.takeRequests();
  });

  /** A clone: the two-lab manifest alone, and an empty cache of its own, so a pull must ask the labs. */
  async function clone(): Promise<{ folder: string; cache: string }> {
    const folder = path.join(work, `clone-${++count}`);
    await fs.mkdir(folder, { recursive: true });
    await fs.copyFile(path.join(both, MANIFEST_FILE_NAME), path.join(folder, MANIFEST_FILE_NAME));
    return { folder, cache: path.join(work, `cache-${count}`) };
  }

  /** Runs pull, status --remote, verify --remote and sync (its lab: LAB_DATA_URL's) on a clone with `env`; each must stop (status says the files are missing, exit 1 or 3). */
  async function manifestCommandsStop(env: Record<string, string>, message: RegExp): Promise<void> {
    const { folder, cache } = await clone();
    const withCache = { ...env, LAB_DATA_CACHE: cache };
    for (const command of [
      ['pull', folder],
      ['status', folder, '--remote'],
      ['verify', folder, '--remote'],
      ['sync', folder],
    ]) {
      const result = await tool.run(command, { env: withCache });
      if (command[0] === 'status') {
        assert.notEqual(result.code, 0, said(result));
      } else {
        assert.equal(result.code, 3, `${command[0]}: ${said(result)}`);
      }
      // verify stops on the first lab it finds unpaired, in the manifest's order (lab A may come first).
      assert.match(
        result.stderr,
        command[0] === 'verify' ? /Nothing was sent\./ : message,
        command[0],
      );
    }
  }

  it("--token-file is the run's one token, paired as LAB_DATA_TOKEN is: a lab with its own paired token gets that one, never the file's", async () => {
    const { folder, cache } = await clone();
    const file = path.join(work, 'a.tok');
    await fs.writeFile(file, `${TOKEN_A}\n`, { mode: 0o600 });
    await fs.chmod(file, 0o600);
    const pulled = await tool.run(['pull', folder, '--token-file', file], {
      env: {
        LAB_DATA_CACHE: cache,
        LAB_DATA_URL: labA.baseUrl,
        LAB_DATA_URL_LAB_B: labB.baseUrl,
        LAB_DATA_TOKEN_LAB_B: TOKEN_B,
      },
    });
    assert.equal(pulled.code, 0, said(pulled));
    assert.deepEqual(tokensSeen(labA.server), ['A']);
    assert.deepEqual(tokensSeen(labB.server), ['B'], "lab B got its own token, not the file's");
    // With only LAB_DATA_URL_LAB_B (which pairs LAB_DATA_TOKEN_LAB_B, not the file), lab B is refused.
    const again = await clone();
    const refused = await tool.run(['pull', again.folder, '--token-file', file], {
      env: {
        LAB_DATA_CACHE: again.cache,
        LAB_DATA_URL: labA.baseUrl,
        LAB_DATA_URL_LAB_B: labB.baseUrl,
      },
    });
    assert.equal(refused.code, 3, said(refused));
    assert.deepEqual(tokensSeen(labB.server), [], 'lab B received nothing');
  });

  it('LAB_DATA_TOKEN goes only to the origin LAB_DATA_URL gives (or, without LAB_DATA_URL, --lab): --lab B with lab A pairing stops before any request (exit 3)', async () => {
    const pairedWithA = { LAB_DATA_TOKEN: TOKEN_A, LAB_DATA_URL: labA.baseUrl };
    const listing = await tool.run(['reports', '--lab', labB.baseUrl], { env: pairedWithA });
    assert.equal(listing.code, 3, said(listing));
    assert.match(
      listing.stderr,
      new RegExp(
        `but LAB_DATA_URL gives http://127\\.0\\.0\\.1:\\d+: LAB_DATA_TOKEN is only sent to that address.*LAB_DATA_TOKEN_${named(labB.baseUrl)}`,
      ),
    );
    const sync = await tool.run(['sync', path.join(work, 'new-b'), '--lab', labB.baseUrl], {
      env: pairedWithA,
    });
    assert.equal(sync.code, 3, said(sync));
    assert.deepEqual(tokensSeen(labB.server), [], 'lab B received no request');
    // pull and status --remote of the two-lab manifest: lab A gets its token, lab B nothing.
    const { folder, cache } = await clone();
    const pull = await tool.run(['pull', folder], {
      env: { ...pairedWithA, LAB_DATA_CACHE: cache },
    });
    assert.equal(pull.code, 3, said(pull));
    const status = await tool.run(['status', folder, '--remote'], {
      env: { ...pairedWithA, LAB_DATA_CACHE: cache },
    });
    assert.match(status.stderr, /LAB_DATA_TOKEN is only sent to that address/);
    assert.deepEqual(tokensSeen(labA.server), ['A']);
    assert.deepEqual(tokensSeen(labB.server), [], 'lab B received no request');
    // Where LAB_DATA_URL gives the lab, the token goes; without LAB_DATA_URL, --lab pairs it.
    const paired = await tool.run(['reports', '--lab', labA.baseUrl], { env: pairedWithA });
    assert.equal(paired.code, 0, said(paired));
    assert.deepEqual(tokensSeen(labA.server), ['A']);
    const byLab = await tool.run(['reports', '--lab', labB.baseUrl], {
      env: { LAB_DATA_TOKEN: TOKEN_B },
    });
    assert.equal(byLab.code, 0, said(byLab));
    assert.deepEqual(tokensSeen(labB.server), ['B']);
  });

  it("LAB_DATA_TOKEN_<NAME> goes only to LAB_DATA_URL_<NAME>'s origin, in every command", async () => {
    const paired = {
      LAB_DATA_TOKEN_LAB_A: TOKEN_A,
      LAB_DATA_URL_LAB_A: labA.baseUrl,
      LAB_DATA_TOKEN_LAB_B: TOKEN_B,
      LAB_DATA_URL_LAB_B: labB.baseUrl,
    };
    const { folder, cache } = await clone();
    const pull = await tool.run(['pull', folder], { env: { ...paired, LAB_DATA_CACHE: cache } });
    assert.equal(pull.code, 0, said(pull));
    const status = await tool.run(['status', folder, '--remote'], {
      env: { ...paired, LAB_DATA_CACHE: cache },
    });
    assert.equal(status.code, 0, said(status));
    assert.deepEqual(tokensSeen(labA.server), ['A'], "only lab A's token reached lab A");
    assert.deepEqual(tokensSeen(labB.server), ['B'], "only lab B's token reached lab B");
    // LAB_DATA_URL_LAB_B gives lab A's address: lab B's token goes neither to lab B nor to lab A.
    await manifestCommandsStop(
      { ...paired, LAB_DATA_URL_LAB_B: labA.baseUrl, LAB_DATA_URL: labB.baseUrl },
      /LAB_DATA_TOKEN_LAB_B is only sent to the address LAB_DATA_URL_LAB_B gives, and LAB_DATA_URL_LAB_B gives http:\/\/127\.0\.0\.1:\d+; the lab "Lab B" is placed at http:\/\/127\.0\.0\.1:\d+\. .*Nothing was sent\./,
    );
    assert.ok(!tokensSeen(labA.server).includes('B'), "lab B's token never reached lab A");
    assert.deepEqual(tokensSeen(labB.server), [], 'lab B received no request');
    // A listing's lab is named after its address: LAB_DATA_TOKEN_<host of B>, here paired with lab A's address.
    const listing = await tool.run(['reports', '--lab', labB.baseUrl], {
      env: {
        [`LAB_DATA_TOKEN_${named(labB.baseUrl)}`]: TOKEN_B,
        [`LAB_DATA_URL_${named(labB.baseUrl)}`]: labA.baseUrl,
      },
    });
    assert.equal(listing.code, 3, said(listing));
    assert.deepEqual(tokensSeen(labB.server), [], 'lab B received no request');
    // Without LAB_DATA_URL_<NAME>, not even the lab whose address gives exactly that name gets it
    // (issue 57: a name never pairs a token with an address).
    const byName = await tool.run(['reports', '--lab', labB.baseUrl], {
      env: { [`LAB_DATA_TOKEN_${named(labB.baseUrl)}`]: TOKEN_B },
    });
    assert.equal(byName.code, 3, said(byName));
    assert.match(
      byName.stderr,
      new RegExp(`set LAB_DATA_URL_${named(labB.baseUrl)}=http://127\\.0\\.0\\.1:\\d+;`),
    );
    assert.deepEqual(tokensSeen(labB.server), []);
  });

  it("a per-lab token set but not paired with the address: the generic LAB_DATA_TOKEN (another lab's) is not sent there instead", async () => {
    // LAB_DATA_TOKEN is lab A's, LAB_DATA_URL points at lab B, LAB_DATA_TOKEN_LAB_B is set without LAB_DATA_URL_LAB_B.
    const env = {
      LAB_DATA_TOKEN: TOKEN_A,
      LAB_DATA_URL: labB.baseUrl,
      LAB_DATA_TOKEN_LAB_B: TOKEN_B,
    };
    await manifestCommandsStop(
      env,
      /LAB_DATA_TOKEN_LAB_B is only sent to the address LAB_DATA_URL_LAB_B gives, and LAB_DATA_URL_LAB_B is not set; .*set LAB_DATA_URL_LAB_B=http:\/\/127\.0\.0\.1:\d+; .*LAB_DATA_TOKEN is not sent there instead/,
    );
    // A listing: the variable named after lab B's address is set, but LAB_DATA_URL_<it> gives another address.
    const listing = await tool.run(['reports', '--lab', labB.baseUrl], {
      env: {
        ...env,
        [`LAB_DATA_TOKEN_${named(labB.baseUrl)}`]: TOKEN_B,
        [`LAB_DATA_URL_${named(labB.baseUrl)}`]: 'https://lab-b.example.org',
      },
    });
    assert.equal(listing.code, 3, said(listing));
    assert.match(listing.stderr, /Set LAB_DATA_URL_LAB_B .*Nothing was sent\./);
    assert.deepEqual(tokensSeen(labB.server), [], "lab A's token never reached lab B");
    assert.deepEqual(tokensSeen(labA.server), [], 'LAB_DATA_URL gives lab B: lab A got nothing');
    // Paired, the same run sends lab B its own token.
    const { folder, cache } = await clone();
    const pull = await tool.run(['pull', folder], {
      env: {
        ...env,
        LAB_DATA_URL_LAB_B: labB.baseUrl,
        LAB_DATA_TOKEN_LAB_A: TOKEN_A,
        LAB_DATA_URL_LAB_A: labA.baseUrl,
        LAB_DATA_CACHE: cache,
      },
    });
    assert.equal(pull.code, 0, said(pull));
    assert.deepEqual(tokensSeen(labB.server), ['B']);
    assert.deepEqual(tokensSeen(labA.server), ['A']);
  });

  it('two hosts whose variable names collide (lab.b.test, lab-b.test): the token LAB_DATA_URL_<NAME> pairs with one never goes to the other', async () => {
    const certs = makeTestCertificates(['lab.b.test', 'lab-b.test']);
    const dot = new MockLabServer({ reports: 4, basePath: '/dot', tokens: BOTH });
    const dash = new MockLabServer({ reports: 4, basePath: '/dash', tokens: BOTH });
    const host = new MockLabHost([dot, dash], { tls: { key: certs.key, cert: certs.cert } });
    const proxy = await startForwardProxy();
    try {
      await host.start();
      const dotUrl = dot.baseUrlAt('lab.b.test');
      const dashUrl = dash.baseUrlAt('lab-b.test');
      const variable = named(dotUrl);
      assert.equal(variable, named(dashUrl), 'the two hosts give one variable name');
      const env = {
        [`LAB_DATA_TOKEN_${variable}`]: TOKEN_B,
        [`LAB_DATA_URL_${variable}`]: dotUrl,
        HTTPS_PROXY: proxy.url,
        NODE_EXTRA_CA_CERTS: certs.caFile,
      };
      const listing = await tool.run(['reports', '--lab', dashUrl], { env });
      assert.equal(listing.code, 3, said(listing));
      const folder = path.join(work, 'collision');
      const sync = await tool.run(['sync', folder, '--lab', dashUrl], { env });
      assert.equal(sync.code, 3, said(sync));
      for (const result of [listing, sync]) {
        assert.match(
          result.stderr,
          new RegExp(
            `LAB_DATA_TOKEN_${variable} is only sent to the address LAB_DATA_URL_${variable} gives, and LAB_DATA_URL_${variable} gives https://lab\\.b\\.test:\\d+;`,
          ),
        );
      }
      assert.deepEqual(tokensSeen(dash), [], 'lab-b.test received no request');
      // The address it is paired with gets it, from a listing and a sync.
      const paired = await tool.run(['reports', '--lab', dotUrl], { env });
      assert.equal(paired.code, 0, said(paired));
      const synced = await tool.run(['sync', folder, '--lab', dotUrl], { env });
      assert.equal(synced.code, 0, said(synced));
      assert.deepEqual(tokensSeen(dot), ['B']);
      // A manifest that places the lab at lab-b.test: pull and status --remote send nothing there either.
      const text = (await fs.readFile(path.join(folder, MANIFEST_FILE_NAME), 'utf8'))
        .split(new URL(dotUrl).origin)
        .join(new URL(dashUrl).origin)
        .split('/dot')
        .join('/dash');
      const moved = path.join(work, 'collision-moved');
      await fs.mkdir(moved);
      await fs.writeFile(path.join(moved, MANIFEST_FILE_NAME), text);
      const movedEnv = { ...env, LAB_DATA_CACHE: path.join(work, 'collision-cache') };
      const pull = await tool.run(['pull', moved], { env: movedEnv });
      assert.equal(pull.code, 3, said(pull));
      const status = await tool.run(['status', moved, '--remote'], { env: movedEnv });
      assert.notEqual(status.code, 0, said(status));
      assert.deepEqual(tokensSeen(dash), [], 'lab-b.test received no request');
    } finally {
      await proxy.stop();
      await host.stop();
      certs.remove();
    }
  });

  it('issue 57, item 1: an unpaired LAB_DATA_TOKEN_<NAME> is refused before any request, so look-alike hosts (lab-b.test, lab_b.test, lab.b.test) never get it', async () => {
    const certs = makeTestCertificates(['lab-b.test', 'lab_b.test', 'lab.b.test']);
    const dash = new MockLabServer({ reports: 3, basePath: '/dash', tokens: BOTH });
    const under = new MockLabServer({ reports: 3, basePath: '/under', tokens: BOTH });
    const dot = new MockLabServer({ reports: 3, basePath: '/dot', tokens: BOTH });
    const host = new MockLabHost([dash, under, dot], { tls: { key: certs.key, cert: certs.cert } });
    const proxy = await startForwardProxy();
    try {
      await host.start();
      const dashUrl = dash.baseUrlAt('lab-b.test');
      const underUrl = under.baseUrlAt('lab_b.test');
      const dotUrl = dot.baseUrlAt('lab.b.test');
      const variable = named(dashUrl);
      assert.equal(variable, named(underUrl));
      assert.equal(variable, named(dotUrl));
      const network = { HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: certs.caFile };
      const unpaired = { ...network, [`LAB_DATA_TOKEN_${variable}`]: TOKEN_B };
      // A listing at each look-alike address: refused, naming LAB_DATA_URL_<NAME> to set.
      for (const address of [dashUrl, underUrl, dotUrl]) {
        const listing = await tool.run(['reports', '--lab', address], { env: unpaired });
        assert.equal(listing.code, 3, said(listing));
        assert.match(listing.stderr, new RegExp(`set LAB_DATA_URL_${variable}=https://`));
        assert.match(listing.stderr, /Nothing was sent\./);
      }
      // A committed manifest that names lab-b.test (its section called after its host): pull refused.
      const folder = path.join(work, 'look-alike');
      const synced = await tool.run(['sync', folder, '--lab', dashUrl], {
        env: { ...network, LAB_DATA_TOKEN: TOKEN_B },
      });
      assert.equal(synced.code, 0, said(synced));
      await fs.rm(path.join(folder, '.lab-data'), { recursive: true, force: true });
      for (const name of await fs.readdir(folder)) {
        if (name !== MANIFEST_FILE_NAME) {
          await fs.rm(path.join(folder, name), { recursive: true, force: true });
        }
      }
      assert.deepEqual(tokensSeen(dash), ['B'], 'the sync itself, paired by --lab');
      const pull = await tool.run(['pull', folder], {
        env: { ...unpaired, LAB_DATA_CACHE: path.join(work, 'look-alike-cache') },
      });
      assert.equal(pull.code, 3, said(pull));
      assert.match(pull.stderr, new RegExp(`LAB_DATA_URL_${variable}`));
      // A token variable of another lab, unpaired, stops a run whose own token is paired.
      const other = await tool.run(['reports', '--lab', dashUrl], {
        env: { ...network, LAB_DATA_TOKEN: TOKEN_B, LAB_DATA_TOKEN_OLD_LAB: TOKEN_A },
      });
      assert.equal(other.code, 3, said(other));
      assert.match(
        other.stderr,
        /LAB_DATA_TOKEN_OLD_LAB is set, but LAB_DATA_URL_OLD_LAB is not: a token goes only to the address a variable names exactly\. Set LAB_DATA_URL_OLD_LAB/,
      );
      for (const lab of [dash, under, dot]) {
        assert.deepEqual(tokensSeen(lab), [], 'no request reached any look-alike host');
      }
      // Paired with lab-b.test, the token goes there and to neither look-alike.
      const paired = { ...unpaired, [`LAB_DATA_URL_${variable}`]: dashUrl };
      const ok = await tool.run(['reports', '--lab', dashUrl], { env: paired });
      assert.equal(ok.code, 0, said(ok));
      for (const address of [underUrl, dotUrl]) {
        const refused = await tool.run(['reports', '--lab', address], { env: paired });
        assert.equal(refused.code, 3, said(refused));
      }
      assert.deepEqual(tokensSeen(dash), ['B']);
      assert.deepEqual(tokensSeen(under), []);
      assert.deepEqual(tokensSeen(dot), []);
    } finally {
      await proxy.stop();
      await host.stop();
      certs.remove();
    }
  });

  it('-v and lab-data status say which variable supplies the token for which address (never the token)', async () => {
    const env = {
      LAB_DATA_TOKEN: TOKEN_A,
      LAB_DATA_URL: labA.baseUrl,
      LAB_DATA_TOKEN_LAB_B: TOKEN_B,
      LAB_DATA_URL_LAB_B: labB.baseUrl,
    };
    const originA = new URL(labA.baseUrl).origin;
    const originB = new URL(labB.baseUrl).origin;
    const { folder, cache } = await clone();
    const pull = await tool.run(['pull', folder, '-v'], {
      env: { ...env, LAB_DATA_CACHE: cache },
    });
    assert.equal(pull.code, 0, said(pull));
    assert.ok(
      pull.stderr.includes(`[token] LAB_DATA_TOKEN for ${originA} (confirmed by LAB_DATA_URL)`),
      pull.stderr,
    );
    assert.ok(
      pull.stderr.includes(
        `[token] LAB_DATA_TOKEN_LAB_B for ${originB} (confirmed by LAB_DATA_URL_LAB_B)`,
      ),
      pull.stderr,
    );
    const listing = await tool.run(['clients', '--lab', labB.baseUrl, '--verbose'], {
      env: {
        [`LAB_DATA_TOKEN_${named(labB.baseUrl)}`]: TOKEN_B,
        [`LAB_DATA_URL_${named(labB.baseUrl)}`]: labB.baseUrl,
      },
    });
    assert.equal(listing.code, 0, said(listing));
    assert.ok(
      listing.stderr.includes(
        `[token] LAB_DATA_TOKEN_${named(labB.baseUrl)} for ${originB} (confirmed by LAB_DATA_URL_${named(labB.baseUrl)})`,
      ),
      listing.stderr,
    );
    // status (no lab asked) says it for each lab of the manifest, and --json as a field.
    const status = await tool.run(['status', folder], { env: { ...env, LAB_DATA_CACHE: cache } });
    assert.equal(status.code, 0, said(status));
    assert.ok(status.stderr.includes(`[token] LAB_DATA_TOKEN for ${originA}`), status.stderr);
    assert.ok(status.stderr.includes(`[token] LAB_DATA_TOKEN_LAB_B for ${originB}`), status.stderr);
    const json = await tool.run(['status', folder, '--json'], {
      env: { LAB_DATA_TOKEN: TOKEN_A, LAB_DATA_URL: labA.baseUrl, LAB_DATA_CACHE: cache },
    });
    assert.equal(json.code, 0, said(json));
    // The manifest keeps its labs in its own order: each is found by name.
    const tokens = (
      JSON.parse(json.stdout) as {
        tokens: Array<{
          lab: string;
          origin: string;
          variable: string | null;
          confirmed_by: string | null;
          problem?: string;
        }>;
      }
    ).tokens;
    const first = tokens.find((token) => token.lab === 'Lab A');
    const second = tokens.find((token) => token.lab === 'Lab B');
    assert.equal(tokens.length, 2);
    assert.deepEqual(first, {
      lab: 'Lab A',
      origin: originA,
      variable: 'LAB_DATA_TOKEN',
      confirmed_by: 'LAB_DATA_URL',
    });
    assert.deepEqual([second!.lab, second!.origin, second!.variable], ['Lab B', originB, null]);
    assert.match(
      second!.problem!,
      /but LAB_DATA_URL gives .*LAB_DATA_TOKEN is only sent to that address/,
    );
    assert.deepEqual(tokensSeen(labA.server), ['A']);
    assert.deepEqual(tokensSeen(labB.server), ['B']);
  });

  it('no output of any run holds a token', () => {
    const all = transcript.join('\n');
    assert.ok(all.length > 0);
    for (const token of [TOKEN_A, TOKEN_B]) {
      assert.ok(!all.includes(token), 'a token was printed');
    }
  });
});
