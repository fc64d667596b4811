import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MANIFEST_FILE_NAME } from '../../core/sync/manifest';
import { SECRET_TOKEN, startMockLab, type MockLab } from '../unit/helpers';
import { packAndInstall, type PackedTool, type RunResult } from './packedTool';

function said(result: RunResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

/** What a recording server sent: bytes accepted per request, and each request's Authorization. */
interface Recorder {
  readonly origin: string;
  readonly sent: number[];
  readonly authorizations: Array<string | undefined>;
  close(): Promise<void>;
}

const HUGE = 128 * 1024 * 1024;
/** More than loopback's socket buffers can hold, far less than the file the server offers. */
const AT_MOST = 32 * 1024 * 1024;

/**
 * A server on 127.0.0.1 answering every GET with a "PDF" of 128 MiB, with or without its
 * `Content-Length`, written with back-pressure: what it counts as sent is what the client took
 * (and the sockets' buffers), until the client hangs up.
 */
async function startHugeFileServer(declareLength: boolean): Promise<Recorder> {
  const sent: number[] = [];
  const authorizations: Array<string | undefined> = [];
  const server = http.createServer((request, response) => {
    authorizations.push(request.headers.authorization);
    if (request.method !== 'GET') {
      // A HEAD (is it there?) is answered with the length alone: no body to count.
      response.writeHead(200, {
        'content-type': 'application/pdf',
        'content-length': String(HUGE),
      });
      response.end();
      return;
    }
    const index = sent.push(0) - 1;
    response.writeHead(200, {
      'content-type': 'application/pdf',
      ...(declareLength ? { 'content-length': String(HUGE) } : {}),
    });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    chunk.write('%PDF-1.7\n');
    let closed = false;
    response.on('close', () => (closed = true));
    const pump = (): void => {
      while (!closed && sent[index]! < HUGE) {
        sent[index]! += chunk.length;
        if (!response.write(chunk)) {
          response.once('drain', pump);
          return;
        }
      }
      if (!closed) {
        response.end();
      }
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    sent,
    authorizations,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Manifest {
  labs: Record<string, { reports: Record<string, { bytes: unknown; file: string }> }>;
}

/**
 * Issue 57, item 2: a report recorded at about 1 KB was read to 2 GiB. Every download and every
 * cache read stops at the recorded size (and at the lab's Content-Length), and a manifest whose
 * `bytes` cannot be a size is refused, naming the report and the line.
 */
describe('lab-data: a file is read no further than its recorded size (packed tool)', function () {
  this.timeout(120_000);
  let tool: PackedTool;
  let lab: MockLab;
  let work: string;
  let synced: string;
  let count = 0;

  before(async function () {
    this.timeout(180_000);
    tool = packAndInstall();
    lab = await startMockLab({ reports: 4 });
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-sizes-'));
    synced = path.join(work, 'synced');
    const sync = await tool.run(['sync', synced], {
      env: { LAB_DATA_TOKEN: SECRET_TOKEN, LAB_DATA_URL: lab.baseUrl },
    });
    assert.equal(sync.code, 0, said(sync));
  });
  after(async () => {
    tool?.remove();
    await lab?.close();
    await fs.rm(work, { recursive: true, force: true });
  });

  /** A clone holding the manifest alone (its text changed by `edit`), and an empty cache of its own. */
  async function clone(
    edit: (text: string) => string = (text) => text,
  ): Promise<{ folder: string; cache: string }> {
    const folder = path.join(work, `clone-${++count}`);
    await fs.mkdir(folder);
    const text = await fs.readFile(path.join(synced, MANIFEST_FILE_NAME), 'utf8');
    await fs.writeFile(path.join(folder, MANIFEST_FILE_NAME), edit(text));
    return { folder, cache: path.join(work, `cache-${count}`) };
  }

  it('a manifest whose "bytes" is negative, fractional, a string or beyond any size is refused by pull, its dry run and verify --rehash, naming the report and the line', async () => {
    const manifest = JSON.parse(
      await fs.readFile(path.join(synced, MANIFEST_FILE_NAME), 'utf8'),
    ) as Manifest;
    const section = Object.values(manifest.labs)[0]!;
    const reportId = Object.keys(section.reports)[1]!;
    for (const bad of [-1100, 1100.5, '1100', 1.05e166]) {
      section.reports[reportId]!.bytes = bad;
      const text = `${JSON.stringify(manifest, null, 2)}\n`;
      const lines = text.split('\n');
      const keyLine = lines.findIndex((line) => line.includes(`"${reportId}": {`));
      const line =
        lines.findIndex((each, index) => index > keyLine && each.includes('"bytes"')) + 1;
      const { folder, cache } = await clone(() => text);
      // The file is there: verify reads it (--rehash), and a dry run only counts.
      await fs.copyFile(
        path.join(synced, section.reports[reportId]!.file),
        path.join(folder, section.reports[reportId]!.file),
      );
      const env = {
        LAB_DATA_TOKEN: SECRET_TOKEN,
        LAB_DATA_URL: lab.baseUrl,
        LAB_DATA_CACHE: cache,
      };
      for (const command of [
        ['pull', folder, '--dry-run'],
        ['pull', folder],
        ['verify', folder, '--rehash'],
      ]) {
        const result = await tool.run(command, { env });
        assert.equal(
          result.code,
          2,
          `${command.join(' ')} with bytes ${String(bad)}: ${said(result)}`,
        );
        assert.ok(result.stderr.includes(`(line ${line})`), result.stderr);
        assert.ok(result.stderr.includes(reportId), result.stderr);
        assert.match(result.stderr, /its "bytes" is .*, not a size in bytes/);
        assert.doesNotMatch(result.stdout + result.stderr, /e\+\d+ ?[KMGT]?B/);
      }
      assert.deepEqual(
        (await fs.readdir(folder)).filter((name) => name !== '.lab-data').sort(),
        [MANIFEST_FILE_NAME, section.reports[reportId]!.file].sort(),
        'nothing was written',
      );
    }
  });

  for (const declareLength of [false, true]) {
    it(`pull takes no more than the recorded size from a lab sending a 128 MiB file ${declareLength ? 'with its Content-Length' : 'without a length'}`, async () => {
      const recorder = await startHugeFileServer(declareLength);
      try {
        const { folder, cache } = await clone((text) =>
          text.split(new URL(lab.baseUrl).origin).join(recorder.origin),
        );
        const pull = await tool.run(['pull', folder], {
          env: {
            LAB_DATA_TOKEN: SECRET_TOKEN,
            LAB_DATA_URL: recorder.origin,
            LAB_DATA_CACHE: cache,
          },
        });
        assert.equal(pull.code, 1, said(pull));
        assert.match(pull.stderr, /changed at the lab|different file/i, said(pull));
        assert.ok(recorder.sent.length > 0, 'the lab was asked');
        for (const bytes of recorder.sent) {
          assert.ok(bytes < AT_MOST, `${bytes} bytes were sent for a file recorded at about 1 KB`);
        }
        assert.deepEqual(
          (await fs.readdir(folder)).filter((name) => name !== '.lab-data'),
          [MANIFEST_FILE_NAME],
          'nothing was saved',
        );
      } finally {
        await recorder.close();
      }
    });
  }

  it('pull reads no more than the recorded size from a team cache offering a larger copy, and takes the file from its lab', async () => {
    const teamCache = await startHugeFileServer(false);
    try {
      const { folder } = await clone();
      const pull = await tool.run(['pull', folder], {
        env: {
          LAB_DATA_TOKEN: SECRET_TOKEN,
          LAB_DATA_URL: lab.baseUrl,
          LAB_DATA_CACHE: `${teamCache.origin}/cache/`,
        },
      });
      assert.equal(pull.code, 0, said(pull));
      assert.match(pull.stderr, /is not that file \(another size\)/);
      assert.ok(teamCache.sent.length > 0, 'the team cache was asked');
      for (const bytes of teamCache.sent) {
        assert.ok(bytes < AT_MOST, `${bytes} bytes were read from the team cache`);
      }
      assert.ok(
        teamCache.authorizations.every((value) => value === undefined),
        "the lab's token never went to the cache",
      );
    } finally {
      await teamCache.close();
    }
  });
});
