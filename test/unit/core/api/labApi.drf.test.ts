import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { saveReports } from '../../../../core/sync/bulkSave';
import type { LabApiError } from '../../../../core/errors/errors';
import { parseBaseUrl } from '../../../../core/connection/baseUrl';
import { HttpClient } from '../../../../core/connection/httpClient';
import { LabApi } from '../../../../core/api/labApi';
import type { PagingAnomaly } from '../../../../core/api/pagination';
import type { Report } from '../../../../core/api/records';
import { serverText } from '../../../../core/errors/serverText';
import { RateLimitGate } from '../../../../core/connection/timing';
import { startDrfLab, type DrfLab } from '../../../drf/drfLab';
import { rejection } from '../../helpers';

const REPORTS = 137;
const ids = (from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => `DRF-${String(to - i).padStart(5, '0')}`);

function client(
  lab: DrfLab,
  options: { onPagingAnomaly?: (a: PagingAnomaly) => void } = {},
): LabApi {
  return LabApi.forBaseUrl(lab.baseUrl, {
    token: lab.token,
    retry: { baseDelayMs: 20, maxDelayMs: 200 },
    rateLimitGate: new RateLimitGate(),
    ...options,
  });
}

async function all<T>(pages: AsyncIterable<{ items: readonly T[] }>): Promise<T[]> {
  const items: T[] = [];
  for await (const page of pages) {
    items.push(...page.items);
  }
  return items;
}

describe('LabApi against a real server framework: Django REST Framework with its defaults', function () {
  this.timeout(120_000);
  let lab: DrfLab;
  let folder: string;

  before(async () => {
    lab = await startDrfLab({ reports: REPORTS });
  });

  after(async () => {
    await lab?.stop();
  });

  beforeEach(async () => {
    folder = await fs.mkdtemp(path.join(os.tmpdir(), 'lab-drf-files-'));
  });

  afterEach(async () => {
    await fs.rm(folder, { recursive: true, force: true });
  });

  it('lists every report, client, project and sample exactly once (its own page size of 20, next links, 404 past the end, slash redirects)', async () => {
    const anomalies: PagingAnomaly[] = [];
    for (const concurrency of [1, 4]) {
      const api = client(lab, { onPagingAnomaly: (a) => anomalies.push(a) });
      try {
        const reports = await all(api.iterateReports({ pageSize: 50 }, { concurrency }));
        assert.deepEqual(
          reports.map((r) => r.report_id),
          ids(1, REPORTS),
          `concurrency ${concurrency}`,
        );
        assert.equal((await all(api.iterateClients({}, { concurrency }))).length, 3);
        assert.equal((await all(api.iterateProjects({}, { concurrency }))).length, 5);
        assert.equal((await all(api.iterateSamples({}, { concurrency }))).length, REPORTS * 2);
      } finally {
        await api.close();
      }
    }
    assert.deepEqual(
      anomalies.filter((a) => a.kind !== 'sequential'),
      [],
    );
  });

  it('filters by client, project, status and date as the server does', async () => {
    const api = client(lab);
    try {
      const everything = await all(api.iterateReports());
      const final = await all(api.iterateReports({ status: 'final' }));
      assert.deepEqual(
        final.map((r) => r.report_id),
        everything.filter((r) => r.status === 'final').map((r) => r.report_id),
      );
      const ofClient = await all(api.iterateReports({ clientId: 'C-002' }));
      assert.ok(ofClient.length > 0 && ofClient.every((r) => r.client_id === 'C-002'));
      assert.equal(ofClient.length, everything.filter((r) => r.client_id === 'C-002').length);
      const recent = await all(api.iterateReports({ publishedSince: '2026-01-20T00:00:00Z' }));
      assert.deepEqual(
        recent.map((r) => r.report_id),
        everything
          .filter((r) => Date.parse(r.published_at!) >= Date.parse('2026-01-20T00:00:00Z'))
          .map((r) => r.report_id),
      );
      const samples = await all(api.iterateSamples({ receivedSince: '2026-01-15T00:00:00Z' }));
      assert.ok(samples.length > 0 && samples.length < REPORTS * 2);
    } finally {
      await api.close();
    }
  });

  it("gives the server's own reasons: field errors, an unknown token, a missing file", async () => {
    const api = client(lab);
    const stranger = LabApi.forBaseUrl(lab.baseUrl, {
      token: 'not-a-token-of-this-lab',
      rateLimitGate: new RateLimitGate(),
    });
    try {
      const invalid = (await rejection(api.listReports({ status: 'draft' }))) as LabApiError;
      assert.equal(invalid.code, 'badRequest');
      assert.match(
        invalid.message,
        /The lab said: “status: Select a valid choice\. draft is not one of the available choices\.”/,
      );
      const unauthorized = (await rejection(stranger.listReports())) as LabApiError;
      assert.equal(unauthorized.code, 'unauthorized');
      assert.match(unauthorized.message, /The lab said: “Invalid token\.”/);
      const noFile = (await rejection(api.fetchReportFile('DRF-00010'))) as LabApiError;
      assert.equal(noFile.code, 'notFound');
      assert.match(noFile.message, /The lab said: “Not found\.”/);
    } finally {
      await api.close();
      await stranger.close();
    }
  });

  it('downloads files through its content negotiation (406 for Accept: application/pdf, then asked with */*) and FileResponse', async () => {
    const api = client(lab);
    try {
      const bytes = await api.fetchReportFile('DRF-00001');
      assert.ok(bytes.subarray(0, 5).equals(Buffer.from('%PDF-')));
      const saved = await api.downloadReportFile('DRF-00002', {
        folder,
        fileName: 'DRF-00002.pdf',
      });
      assert.ok((await fs.readFile(saved.path)).subarray(0, 5).equals(Buffer.from('%PDF-')));
    } finally {
      await api.close();
    }
  });
});

describe('LabApi against Django REST Framework under its throttling', function () {
  this.timeout(180_000);
  it('a bulk save of 40 reports at 10 requests a second saves every file, none failed', async () => {
    const lab = await startDrfLab({ reports: 45, throttle: '10/s' });
    const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'lab-drf-bulk-'));
    const api = client(lab);
    try {
      const reports: Report[] = (await all(api.iterateReports()))
        .filter((r) => r.download_available)
        .slice(0, 40);
      assert.equal(reports.length, 40);
      const run = await saveReports(reports, {
        api,
        target: { folder, template: '${report_id}.pdf' },
        signal: new AbortController().signal,
        concurrency: 4,
      });
      assert.deepEqual(
        run.failed.map((f) => String(f.error)),
        [],
      );
      assert.equal(run.saved.length, 40);
      assert.equal((await fs.readdir(folder)).filter((name) => name.endsWith('.pdf')).length, 40);
    } finally {
      await api.close();
      await lab.stop();
      await fs.rm(folder, { recursive: true, force: true });
    }
  });
});

describe('LabApi against Django REST Framework: its text, its streamed files, a disk that refuses', function () {
  this.timeout(120_000);
  let lab: DrfLab;
  let folder: string;

  before(async () => {
    lab = await startDrfLab({ reports: 12, pdfBytes: 100 * 1024 });
    folder = await fs.mkdtemp(path.join(os.tmpdir(), 'lab-drf-more-'));
  });

  after(async () => {
    await lab?.stop();
    await fs.rm(folder, { recursive: true, force: true });
  });

  it('a reason that echoes what was asked (with a line break and a bidi override) arrives as one clean line', async () => {
    const api = client(lab);
    try {
      const error = (await rejection(
        api.listReports({ status: 'draft\u202e\nexe.fdp' }),
      )) as LabApiError;
      assert.match(
        error.message,
        /The lab said: “status: Select a valid choice\. draft exe\.fdp is not one of the available choices\.”/,
      );
      assert.doesNotMatch(`${error.message}${error.describe()}`, /[\u0000-\u001f\u202a-\u202e]/);
      const harbour = (await all(api.iterateClients())).find((c) => c.client_id === 'C-003')!;
      assert.equal(serverText(harbour.name), 'Harbour Council (legacy)');
    } finally {
      await api.close();
    }
  });

  it('a streamed file (no Content-Length, ended by closing the connection) saves whole, also when the reader starts late', async () => {
    const api = client(lab);
    try {
      const amended = (await all(api.iterateReports({ status: 'amended' }))).filter(
        (r) => r.download_available,
      );
      assert.ok(amended.length > 0);
      for (const report of amended) {
        const saved = await api.downloadReportFile(report.report_id, {
          folder,
          fileName: `${report.report_id}.pdf`,
        });
        assert.ok(saved.bytes >= 100 * 1024);
        const bytes = await fs.readFile(saved.path);
        assert.ok(
          bytes.subarray(0, 5).equals(Buffer.from('%PDF-')) &&
            bytes.subarray(-6).toString().includes('%%EOF'),
        );
      }
      // The reader starts 300 ms late: Django has closed the connection long before.
      const http = new HttpClient({
        baseUrl: parseBaseUrl(lab.baseUrl),
        token: lab.token,
        timeouts: { bodyIdleMs: 3000 },
      });
      try {
        const late = await http.getStream(
          { path: `/api/v1/reports/${amended[0]!.report_id}/file/`, accept: '*/*' },
          async (response) => {
            assert.equal(
              response.contentLength,
              undefined,
              'no Content-Length: the body ends with the connection',
            );
            await new Promise((resolve) => setTimeout(resolve, 300));
            const chunks: Buffer[] = [];
            for await (const chunk of response.body) {
              chunks.push(chunk as Buffer);
            }
            return Buffer.concat(chunks);
          },
        );
        assert.ok(
          late.equals(await fs.readFile(path.join(folder, `${amended[0]!.report_id}.pdf`))),
        );
      } finally {
        await http.close();
      }
    } finally {
      await api.close();
    }
  });

  it('a folder that cannot be made is a failed save in plain words, nothing left behind', async () => {
    const api = client(lab);
    try {
      await fs.writeFile(path.join(folder, 'in-the-way'), 'x');
      const error = (await rejection(
        api.downloadReportFile('DRF-00001', {
          folder: path.join(folder, 'in-the-way', 'reports'),
          root: folder,
          fileName: 'r.pdf',
        }),
      )) as LabApiError;
      assert.equal(error.code, 'fileSystem');
      assert.match(error.message, /A file stands where a folder should be/);
      assert.deepEqual(
        (await fs.readdir(folder)).filter((name) => name.includes('.part')),
        [],
      );
    } finally {
      await api.close();
    }
  });
});
