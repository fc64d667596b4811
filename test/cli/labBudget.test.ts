import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MANIFEST_FILE_NAME } from '../../core/sync/manifest';
import { FaultServer, httpHead, type FaultAnswer } from '../support/faultServer';
import { SECRET_TOKEN, startMockLab, type MockLab } from '../unit/helpers';
import { packAndInstall, transcript, type PackedTool, type RunResult } from './packedTool';

function said(result: RunResult, seconds: number): string {
  return `exit ${result.code} after ${seconds.toFixed(1)} s\nstdout: ${result.stdout.slice(0, 2000)}\nstderr: ${result.stderr.slice(0, 4000)}`;
}

/** A complete answer with `status` and `Retry-After`, the connection closed after it. */
function waitAnswer(status: string, retryAfter: string): FaultAnswer {
  return {
    kind: 'cut',
    bytes: httpHead(status, {
      'content-type': 'application/json',
      'content-length': '0',
      'retry-after': retryAfter,
      connection: 'close',
    }),
    cut: 'fin',
    delivery: 'burst',
  };
}

/**
 * `200` headers (a PDF for a file, JSON for anything else), then nothing, the connection held open.
 * A file's headers give no length: a length other than the recorded size is refused unread (the
 * file changed at the lab), which is not the stall this lab is.
 */
function headersThenNothing(_request: number, head: string): FaultAnswer {
  const file = /^GET \S*\/file[\s?]/.test(head);
  return {
    kind: 'stall',
    bytes: httpHead(
      '200 OK',
      file
        ? { 'content-type': 'application/pdf' }
        : { 'content-type': 'application/json', 'content-length': '5000' },
    ),
  };
}

/** A lab failing as a whole, four ways, and the cause each run must name. */
const FAILING_LABS: ReadonlyArray<{
  readonly title: string;
  readonly answer: (request: number, head: string) => FaultAnswer;
  /** LAB_DATA_ANSWER_TIMEOUT for the run (seconds); the default (30 s) when undefined. */
  readonly answerTimeout?: number;
  readonly cause: RegExp;
}> = [
  {
    title: '429 with Retry-After: 60 on every request',
    answer: () => waitAnswer('429 Too Many Requests', '60'),
    cause:
      /The lab at http:\/\/127\.0\.0\.1:\d+ asked to wait 60 s \(Retry-After\), longer than the (\d+ s left of the )?30 s budget; not waited: try again after \d\d:\d\d\./,
  },
  {
    title: '503 with a Retry-After of a day',
    answer: () => waitAnswer('503 Service Unavailable', '86400'),
    cause:
      /The lab at http:\/\/127\.0\.0\.1:\d+ asked to wait 24 h \(Retry-After\), longer than the (\d+ s left of the )?30 s budget; not waited: try again after \d{4}-\d\d-\d\d \d\d:\d\d\./,
  },
  {
    title: 'a lab that accepts connections and never answers',
    answer: () => ({ kind: 'silent' }),
    answerTimeout: 4,
    cause:
      /The lab at http:\/\/127\.0\.0\.1:\d+ accepted the connection and sent nothing for 4 s\./,
  },
  {
    title: 'a lab that sends its headers, then no body',
    answer: headersThenNothing,
    answerTimeout: 4,
    cause: /The lab at http:\/\/127\.0\.0\.1:\d+ sent its headers, then nothing for 4 s\./,
  },
];

/**
 * Seconds a run may take beyond the budget, counted from the lab's first request to the tool's
 * exit (so Node's and the tool's start, however slow on a busy machine, are not counted): the
 * manifest written and the summary said.
 */
const MARGIN_S = 8;

describe('lab-data: a lab failing as a whole costs a run at most one answer timeout (packed tool)', function () {
  this.timeout(90_000);
  let tool: PackedTool;
  let lab: MockLab;
  let faults: FaultServer;
  let faultUrl: string;
  let work: string;
  /** A folder whose manifest records this many files, none of them present, at the fault server's address. */
  let folder: string;
  let recorded: number;

  /**
   * Runs the tool against the fault server; the seconds from the lab's first request to the
   * tool's exit: what the budget promises (a busy machine's slow start of Node is not the lab's).
   */
  async function run(
    args: readonly string[],
    answerTimeout?: number,
  ): Promise<{ result: RunResult; seconds: number }> {
    const env: Record<string, string> = { LAB_DATA_TOKEN: SECRET_TOKEN, LAB_DATA_URL: faultUrl };
    if (answerTimeout !== undefined) {
      env.LAB_DATA_ANSWER_TIMEOUT = String(answerTimeout);
    }
    const started = Date.now();
    const result = await tool.run(args, { env });
    const firstAsked = faults.firstRequestAt || started;
    return { result, seconds: (Date.now() - firstAsked) / 1000 };
  }

  before(async function () {
    this.timeout(240_000);
    tool = packAndInstall();
    lab = await startMockLab({ reports: 30 });
    faults = new FaultServer(() => ({ kind: 'silent' }));
    faultUrl = await faults.start();
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-budget-'));
    folder = path.join(work, 'reports');
    const synced = await tool.run(['sync', folder], {
      env: { LAB_DATA_TOKEN: SECRET_TOKEN, LAB_DATA_URL: lab.baseUrl },
    });
    assert.equal(synced.code, 0, said(synced, 0));
    const pdfs = (await fs.readdir(folder)).filter((name) => name.endsWith('.pdf'));
    recorded = pdfs.length;
    assert.ok(recorded >= 20, `${recorded} files`);
    await Promise.all(pdfs.map((name) => fs.rm(path.join(folder, name))));
    // The same manifest, its lab now at the fault server's address (a lab that moved, then failed).
    const manifest = path.join(folder, MANIFEST_FILE_NAME);
    const text = await fs.readFile(manifest, 'utf8');
    assert.ok(text.includes(lab.baseUrl));
    await fs.writeFile(manifest, text.split(lab.baseUrl).join(faultUrl));
  });
  after(async () => {
    tool?.remove();
    await lab?.close();
    await faults?.stop();
    await fs.rm(work, { recursive: true, force: true });
    for (const text of transcript) {
      assert.ok(!text.includes(SECRET_TOKEN), 'no output holds the token');
    }
  });
  afterEach(() => faults.dropAll());

  for (const failing of FAILING_LABS) {
    describe(failing.title, () => {
      const budget = failing.answerTimeout ?? 30;

      it(`pull of 20+ missing files (no cache): exit 4 within the budget, the cause said, the other files not asked for`, async () => {
        faults.answerWith(failing.answer);
        const { result, seconds } = await run(['pull', folder], failing.answerTimeout);
        assert.equal(result.code, 4, said(result, seconds));
        assert.ok(seconds < budget + MARGIN_S, said(result, seconds));
        assert.match(result.stderr, failing.cause);
        assert.match(result.stderr, new RegExp(`Pulled .*: ${recorded} files: ${recorded} failed`));
        // One request a worker at most: the first answers trip the run's budget, the rest are not sent.
        assert.ok(faults.requests <= 4, `${faults.requests} requests`);
        assert.deepEqual(
          (await fs.readdir(folder)).filter((name) => /\.(pdf|part)$/.test(name)),
          [],
          'nothing written',
        );
      });

      it('sync: exit 4 within the budget, the cause said', async () => {
        faults.answerWith(failing.answer);
        const { result, seconds } = await run(['sync', folder], failing.answerTimeout);
        assert.equal(result.code, 4, said(result, seconds));
        assert.ok(seconds < budget + MARGIN_S, said(result, seconds));
        assert.match(result.stderr, failing.cause);
      });

      it('status --remote: exit 4 within the budget, the cause said', async () => {
        faults.answerWith(failing.answer);
        const { result, seconds } = await run(
          ['status', folder, '--remote'],
          failing.answerTimeout,
        );
        assert.equal(result.code, 4, said(result, seconds));
        assert.ok(seconds < budget + MARGIN_S, said(result, seconds));
        assert.match(result.stderr, failing.cause);
      });
    });
  }

  it('a Retry-After that fits is waited, and the next one that does not is said: Retry-After 20 costs a pull 20 s, not 60', async function () {
    this.timeout(120_000);
    faults.answerWith(() => waitAnswer('429 Too Many Requests', '20'));
    const { result, seconds } = await run(['pull', folder]);
    assert.equal(result.code, 4, said(result, seconds));
    assert.ok(seconds >= 19.5 && seconds < 30, said(result, seconds));
    assert.match(
      result.stderr,
      /asked to wait 20 s \(Retry-After\), longer than the \d+ s left of the 30 s budget; not waited/,
    );
    assert.ok(faults.requests <= 8, `${faults.requests} requests: four, then four after the wait`);
  });

  it('status --remote --json names the lab that could not be asked and why, and exits 4', async () => {
    faults.answerWith(() => waitAnswer('429 Too Many Requests', '60'));
    const { result, seconds } = await run(['status', folder, '--remote', '--json']);
    assert.equal(result.code, 4, said(result, seconds));
    const json = JSON.parse(result.stdout) as {
      unavailable: Array<Record<string, unknown>>;
      exit_code: number;
    };
    assert.equal(json.exit_code, 4);
    assert.equal(json.unavailable.length, 1);
    assert.deepEqual(Object.keys(json.unavailable[0]!), ['lab', 'reason']);
    assert.match(String(json.unavailable[0]!.reason), FAILING_LABS[0]!.cause);
  });

  it('the budget is one answer timeout, 30 s by default: a silent lab stops a pull after 30 s, not before, and within 40 s', async function () {
    this.timeout(120_000);
    faults.answerWith(() => ({ kind: 'silent' }));
    const { result, seconds } = await run(['pull', folder]);
    assert.equal(result.code, 4, said(result, seconds));
    assert.ok(seconds >= 29.5 && seconds < 40, said(result, seconds));
    assert.match(
      result.stderr,
      /The lab at http:\/\/127\.0\.0\.1:\d+ accepted the connection and sent nothing for 30 s\./,
    );
    assert.ok(faults.requests <= 4, `${faults.requests} requests`);
  });
});
