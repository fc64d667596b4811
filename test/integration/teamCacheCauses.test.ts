import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs, readFileSync } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LabApi } from '../../core/api/labApi';
import { answerTimeoutMs } from '../../core/connection/httpClient';
import { defaultCacheFolder } from '../../core/files/contentCache';
import { listAllReports } from '../../core/sync/folderSync';
import { closedPort } from '../support/closedPort';
import { syncedAsColleague } from '../support/colleagueFolder';
import {
  FakePrompts,
  LEAK_CHECK_TOKEN,
  eventually,
  extensionPackageJson,
  labDataLogFiles,
  signedInLab,
  workspaceFolder,
  type SignedInLab,
  oneAnswerTimeoutDeadline,
} from './helpers';

const GOOD_TOKEN = 'team-cache-good-4b1d9f0c77e2';
const WRONG_TOKEN = 'team-cache-wrong-a03e5c19d8b6';

/** A team cache server that answers and holds nothing (404 to every request). */
async function emptyCache(): Promise<{ url: string; requests: number; close(): Promise<void> }> {
  const seen = { requests: 0 };
  const server = http.createServer((request, response) => {
    seen.requests += 1;
    request.resume();
    response.statusCode = 404;
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/team`,
    get requests() {
      return seen.requests;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A team cache server that wants `Bearer GOOD_TOKEN` (401 otherwise), holds nothing (404) and takes no write (403). */
async function refusingCache(): Promise<{
  url: string;
  requests: Array<{ method: string; authorization: string }>;
  close(): Promise<void>;
}> {
  const requests: Array<{ method: string; authorization: string }> = [];
  const server = http.createServer((request, response) => {
    const authorization = String(request.headers.authorization ?? '');
    requests.push({ method: request.method ?? '', authorization });
    request.resume();
    response.statusCode =
      authorization !== `Bearer ${GOOD_TOKEN}` ? 401 : request.method === 'PUT' ? 403 : 404;
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/team`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A server that stalls: `silent` accepts connections and never says a word; `headers` answers each
 * request with a 200's headers (a length of 1000) and never sends the body.
 */
async function stallingCache(kind: 'silent' | 'headers'): Promise<{
  url: string;
  close(): Promise<void>;
}> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    if (kind === 'headers') {
      // Each request's headers answered (a HEAD is then complete); a body never comes.
      socket.on('data', (chunk: Buffer) => {
        const requests = chunk.toString('latin1').match(/^[A-Z]+ \S+ HTTP\/1\.1\r\n/gm) ?? [];
        socket.write(
          'HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 1000\r\n\r\n'.repeat(
            requests.length,
          ),
        );
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/team`,
    close: () => {
      sockets.forEach((socket) => socket.destroy());
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** What an action a person waits for may take on a silent cache: one answer timeout, never two. */
const deadlineMs = oneAnswerTimeoutDeadline(answerTimeoutMs());
/** Progress is on screen within half a second (PROGRESS_DELAY_MS is 250 ms; a busy machine's timers fire late). */
const PROGRESS_WITHIN_MS = 500;

describe('a team cache that says what it is in VS Code (Set Team Cache Token checks the token, Restore and Push name the cache and its cause, labData.cacheFolder refused, a stalled cache costs one timeout)', function () {
  this.timeout(120_000);
  let signedIn: SignedInLab;
  let folder: string;
  let cacheBefore: unknown;
  let restorePrompts: () => void;
  let prompts: FakePrompts;
  const config = () => vscode.workspace.getConfiguration('labData');
  const setCache = (value: string | undefined) =>
    config().update('cacheFolder', value, vscode.ConfigurationTarget.Global);

  before(async () => {
    signedIn = await signedInLab();
    cacheBefore = config().inspect('cacheFolder')?.globalValue;
    folder = path.join(await fs.mkdtemp(path.join(workspaceFolder(), 'causes-')), 'lab-reports');
    const api = LabApi.forBaseUrl(signedIn.lab.baseUrl, { token: LEAK_CHECK_TOKEN });
    const reports = (await listAllReports(api, {}))
      .filter((report) => report.download_available)
      .slice(0, 6);
    await syncedAsColleague(api, folder, reports);
    await api.close();
  });

  beforeEach(() => {
    prompts = new FakePrompts();
    restorePrompts = signedIn.api.setPrompts(prompts);
  });

  afterEach(() => restorePrompts());

  after(async () => {
    if (!signedIn) {
      return;
    }
    const removing = new FakePrompts();
    removing.tokenAnswers = [''];
    const restore = signedIn.api.setPrompts(removing);
    await vscode.commands.executeCommand('labData.setCacheToken');
    restore();
    await setCache(cacheBefore as string | undefined);
    await signedIn.close();
    await fs.rm(path.dirname(folder), { recursive: true, force: true });
  });

  /** The warnings shown since `before`. */
  function warningsSince(before: ReadonlyArray<unknown>) {
    return signedIn.api.warningsShown().filter((shown) => !before.includes(shown));
  }

  it("Set Team Cache Token names the cache's address, checks the token with one request there, keeps the box open with the reason when it is refused, and never logs it", async () => {
    const cache = await refusingCache();
    try {
      await setCache(cache.url);
      prompts.tokenAnswers = [WRONG_TOKEN, GOOD_TOKEN];
      const kept = await vscode.commands.executeCommand('labData.setCacheToken');
      assert.equal(kept, true);
      assert.ok(prompts.tokenTitles[0]?.includes(cache.url), JSON.stringify(prompts.tokenTitles));
      assert.equal(prompts.tokenProblems.length, 1, JSON.stringify(prompts.tokenProblems));
      assert.match(
        prompts.tokenProblems[0]!,
        /^The team cache at http:\/\/127\.0\.0\.1:\d+\/team refused this token \(401\)/,
      );
      assert.ok(!prompts.tokenProblems[0]!.includes(WRONG_TOKEN));
      // One request a token typed: the wrong one, then the good one.
      assert.deepEqual(
        cache.requests.map((request) => request.authorization),
        [`Bearer ${WRONG_TOKEN}`, `Bearer ${GOOD_TOKEN}`],
      );
      for (const file of await labDataLogFiles()) {
        const text = await fs.readFile(file, 'utf8');
        assert.ok(!text.includes(WRONG_TOKEN) && !text.includes(GOOD_TOKEN), file);
      }
    } finally {
      await cache.close();
    }
  });

  it('Set Team Cache Token with the cache out of reach says so and saves the token only if the user says so', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/team`;
    await setCache(url);
    prompts.tokenAnswers = [GOOD_TOKEN];
    prompts.confirmAnswer = false;
    assert.equal(await vscode.commands.executeCommand('labData.setCacheToken'), undefined);
    assert.equal(prompts.confirmAsked.length, 1);
    assert.match(
      prompts.confirmAsked[0]!.message,
      /^The team cache at http:\/\/127\.0\.0\.1:\d+\/team could not be reached, so the token was not checked\. Save it anyway\?$/,
    );
    assert.match(prompts.confirmAsked[0]!.detail, /cannot be reached/);
    prompts.tokenAnswers = [GOOD_TOKEN];
    prompts.confirmAnswer = true;
    assert.equal(await vscode.commands.executeCommand('labData.setCacheToken'), true);
  });

  for (const refused of [
    { value: 'ftp://files.example.com/cache', cause: /must start with https:\/\// },
    { value: 'http://cache.example.com/lab-data', cause: /must use https:\/\// },
    {
      value: 'relative-team-cache-dir',
      cause: /neither an absolute folder path nor an https:\/\/ address/,
    },
  ]) {
    it(`labData.cacheFolder "${refused.value}" is refused when read: said once, naming the setting, with Open Settings; the report is saved and nothing is written there`, async () => {
      const before = signedIn.api.warningsShown();
      await setCache(refused.value);
      const api = LabApi.forBaseUrl(signedIn.lab.baseUrl, { token: LEAK_CHECK_TOKEN });
      const [first, second] = (await listAllReports(api, {}))
        .filter((report) => report.download_available)
        .slice(10, 12);
      await api.close();
      const saved: vscode.Uri[] = [];
      for (const report of [first!, second!]) {
        saved.push(
          await vscode.commands.executeCommand<vscode.Uri>(
            'labData.saveReportPdf',
            report.report_id,
          ),
        );
      }
      const shown = await eventually(() => {
        const found = warningsSince(before).filter((warning) =>
          warning.message.includes('labData.cacheFolder'),
        );
        assert.equal(found.length, 1, JSON.stringify(found));
        return found[0]!;
      });
      assert.match(shown.message, /^The setting labData\.cacheFolder cannot be used: /);
      assert.match(shown.message, refused.cause);
      assert.deepEqual(shown.actions, ['Open Settings']);
      const bytes = await fs.readFile(saved[0]!.fsPath);
      const hash = createHash('sha256').update(bytes).digest('hex');
      // Kept in the user's own cache folder, the one that serves instead.
      await fs.stat(path.join(defaultCacheFolder(), 'sha256', hash.slice(0, 2), hash));
      for (const base of [process.cwd(), workspaceFolder()]) {
        assert.equal(
          await fs.stat(path.resolve(base, refused.value)).catch(() => undefined),
          undefined,
          `nothing written at ${refused.value} from ${base}`,
        );
      }
      for (const uri of saved) {
        await fs.rm(uri.fsPath, { force: true });
      }
    });
  }

  it('the setting is found by searching the Settings editor for "team cache": its description begins so', () => {
    const property = extensionPackageJson().contributes.configuration.properties[
      'labData.cacheFolder'
    ] as { markdownDescription?: string };
    let description = property.markdownDescription ?? '';
    if (/^%.*%$/.test(description)) {
      // A host that gives the manifest unlocalised: the text is package.nls.json's.
      const extension = vscode.extensions.all.find(
        (each) => each.packageJSON?.contributes?.configuration?.properties?.['labData.cacheFolder'],
      )!;
      const nls = JSON.parse(
        readFileSync(path.join(extension.extensionPath, 'package.nls.json'), 'utf8'),
      ) as Record<string, string>;
      description = nls[description.slice(1, -1)]!;
    }
    assert.match(description.split('\n')[0]!, /^\*\*Team cache\*\*/);
  });

  for (const kind of ['silent', 'headers'] as const) {
    it(`Push to Team Cache with a cache that ${kind === 'silent' ? 'accepts and never answers' : 'sends headers, then nothing'}: progress within 0.5 s, one answer timeout in all, then the cache's cause with Show Log`, async () => {
      const cache = await stallingCache(kind);
      try {
        await setCache(cache.url);
        const before = signedIn.api.warningsShown();
        const started = Date.now();
        const summary = await vscode.commands.executeCommand<{
          pushed: number;
          cacheProblem?: string;
        }>('labData.pushToTeamCache', { folder });
        const took = Date.now() - started;
        assert.ok(
          took < deadlineMs,
          `Push took ${took} ms; one answer timeout is ${answerTimeoutMs()} ms`,
        );
        assert.equal(summary.pushed, 0);
        console.log(`      (Push took ${took} ms)`);
        const progress = signedIn.api
          .progressShown()
          .filter(
            (shown) => shown.startedAt >= started && shown.title.includes('Pushing saved reports'),
          );
        assert.equal(progress.length, 1, JSON.stringify(signedIn.api.progressShown().slice(-3)));
        if (took > PROGRESS_WITHIN_MS) {
          // Work that lasts shows its progress within half a second (quicker work shows none).
          assert.ok(
            progress[0]!.shownAt !== undefined,
            `the progress showed (Push took ${took} ms)`,
          );
          const shownAfter = progress[0]!.shownAt! - progress[0]!.startedAt;
          assert.ok(shownAfter <= PROGRESS_WITHIN_MS, `the progress showed after ${shownAfter} ms`);
        }
        const shown = await eventually(() => {
          const found = warningsSince(before);
          assert.equal(found.length, 1, JSON.stringify(found));
          return found[0]!;
        });
        assert.ok(
          shown.message.startsWith(`The team cache at ${cache.url} could not be used: `) ||
            shown.message.startsWith(`The team cache at ${cache.url} cannot be written: `),
          shown.message,
        );
        assert.match(
          shown.message,
          /no answer within|timed out|sent nothing|nothing for|does not hold/,
        );
        assert.doesNotMatch(shown.message, /LAB_DATA_CACHE_TOKEN|netrc/);
        assert.deepEqual(shown.actions, ['Show Log']);
      } finally {
        await cache.close();
      }
    });
  }

  it("Push to a cache that refuses the credentials names the cache and its cause first, with Set Team Cache Token and Show Log, in the extension's words", async () => {
    const cache = await refusingCache();
    try {
      await setCache(cache.url);
      const removing = new FakePrompts();
      removing.tokenAnswers = [''];
      const restore = signedIn.api.setPrompts(removing);
      await vscode.commands.executeCommand('labData.setCacheToken');
      restore();
      const before = signedIn.api.warningsShown();
      await vscode.commands.executeCommand('labData.pushToTeamCache', { folder });
      const shown = await eventually(() => {
        const found = warningsSince(before);
        assert.equal(found.length, 1, JSON.stringify(found));
        return found[0]!;
      });
      assert.ok(
        shown.message.startsWith(
          `The team cache at ${cache.url} refused the credentials (401): set its token with Set Team Cache Token.`,
        ),
        shown.message,
      );
      assert.doesNotMatch(shown.message, /LAB_DATA_CACHE_TOKEN|netrc/);
      assert.deepEqual(shown.actions, ['Set Team Cache Token', 'Show Log']);
      // The log says the extension's advice too, not the command line's.
      const logged = await eventually(async () => {
        const lines: string[] = [];
        for (const file of await labDataLogFiles()) {
          lines.push(
            ...(await fs.readFile(file, 'utf8'))
              .split('\n')
              .filter((line) => line.includes(cache.url) && line.includes('refused')),
          );
        }
        assert.ok(lines.length > 0, 'the refusal is in the log');
        return lines;
      });
      for (const line of logged) {
        assert.doesNotMatch(line, /LAB_DATA_CACHE_TOKEN|netrc/, line);
      }
    } finally {
      await cache.close();
    }
  });

  describe('Restore with the lab stopped', () => {
    /** What a Restore took when the cache refused at once: the lab's own failure, which a silent cache adds one answer timeout to. */
    let labFailureMs = 0;
    before(async () => {
      for (const name of (await fs.readdir(folder)).filter((file) => file.endsWith('.pdf'))) {
        const bytes = await fs.readFile(path.join(folder, name));
        const hash = createHash('sha256').update(bytes).digest('hex');
        await fs.rm(path.join(defaultCacheFolder(), 'sha256', hash.slice(0, 2), hash), {
          force: true,
        });
        await fs.rm(path.join(folder, name));
      }
      await signedIn.lab.stop();
    });

    it("with a cache that refuses the credentials: the cache's cause first, then what the lab said, with Set Team Cache Token", async () => {
      const cache = await refusingCache();
      try {
        await setCache(cache.url);
        const before = signedIn.api.warningsShown();
        const started = Date.now();
        const summary = await vscode.commands.executeCommand<{ failed: number }>(
          'labData.restoreReports',
          { folder },
        );
        labFailureMs = Date.now() - started;
        assert.equal(summary.failed, 6);
        const shown = await eventually(() => {
          const found = warningsSince(before);
          assert.equal(found.length, 1, JSON.stringify(found));
          return found[0]!;
        });
        assert.ok(
          shown.message.startsWith(`The team cache at ${cache.url} refused the credentials (401)`),
          shown.message,
        );
        assert.match(shown.message, /6 could not be restored/);
        assert.deepEqual(shown.actions, ['Set Team Cache Token', 'Show Log']);
      } finally {
        await cache.close();
      }
    });

    it("with a cache that answers but lacks the files: that it lacks them (someone's Push did not run) first, then what the lab said", async () => {
      const cache = await emptyCache();
      try {
        await setCache(cache.url);
        const before = signedIn.api.warningsShown();
        const summary = await vscode.commands.executeCommand<{ failed: number }>(
          'labData.restoreReports',
          { folder },
        );
        assert.equal(summary.failed, 6);
        const shown = await eventually(() => {
          const found = warningsSince(before);
          assert.equal(found.length, 1, JSON.stringify(found));
          return found[0]!;
        });
        assert.ok(
          shown.message.startsWith(
            `The team cache at ${cache.url} lacks these 6 (someone's Push to Team Cache did not run), so they were asked of the lab: `,
          ),
          shown.message,
        );
        assert.match(shown.message, /6 could not be restored/);
        assert.ok(cache.requests > 0, 'the cache was asked');
      } finally {
        await cache.close();
      }
    });

    it("with a silent cache: one answer timeout, the cache's cause first, then what the lab said", async () => {
      const cache = await stallingCache('silent');
      try {
        await setCache(cache.url);
        const before = signedIn.api.warningsShown();
        const started = Date.now();
        const summary = await vscode.commands.executeCommand<{ failed: number }>(
          'labData.restoreReports',
          { folder },
        );
        const took = Date.now() - started;
        assert.ok(
          took < deadlineMs + labFailureMs,
          `Restore took ${took} ms: one answer timeout of the cache's, and ${labFailureMs} ms of the stopped lab's, are ${answerTimeoutMs() + labFailureMs} ms`,
        );
        assert.equal(summary.failed, 6);
        const shown = await eventually(() => {
          const found = warningsSince(before);
          assert.equal(found.length, 1, JSON.stringify(found));
          return found[0]!;
        });
        assert.ok(
          shown.message.startsWith(`The team cache at ${cache.url} could not be used: `),
          shown.message,
        );
        assert.match(shown.message, /6 could not be restored/);
        assert.deepEqual(shown.actions, ['Show Log']);
      } finally {
        await cache.close();
      }
    });
  });
});
