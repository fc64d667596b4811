import * as assert from 'node:assert/strict';
import { MockLabServer } from '../../mock/server';
import { planPdf } from '../../mock/pdf';
import { FIXED_NOW } from '../helpers';

/** Checks a PDF's cross-reference table: every offset must point at its `N 0 obj`. */
function assertValidPdf(pdf: Buffer): void {
  const text = pdf.toString('latin1');
  assert.ok(text.startsWith('%PDF-1.4'));
  assert.ok(text.trimEnd().endsWith('%%EOF'));
  const startxref = Number(/startxref\n(\d+)\n%%EOF/.exec(text)![1]);
  assert.ok(text.slice(startxref).startsWith('xref'));
  const entries = [...text.slice(startxref).matchAll(/^(\d{10}) 00000 n $/gm)].map((m) =>
    Number(m[1]),
  );
  entries.forEach((offset, index) =>
    assert.ok(
      text.slice(offset).startsWith(`${index + 1} 0 obj`),
      `object ${index + 1} at ${offset}`,
    ),
  );
}

describe('the mock lab', () => {
  it('generates realistic, deterministic demo data', () => {
    const a = new MockLabServer({ now: FIXED_NOW });
    const b = new MockLabServer({ now: FIXED_NOW });
    assert.deepEqual(a.data, b.data, 'the same seed gives the same data');
    const { clients, projects, reports, samples } = a.data;
    assert.ok(clients.length >= 5);
    assert.ok(projects.length >= 14 && projects.length <= 20);
    assert.ok(reports.length >= 300 && reports.length <= 600);
    assert.ok(samples.length >= 2000);
    const published = reports.map((r) => Date.parse(r.published_at));
    assert.ok(
      Math.max(...published) - Math.min(...published) > 600 * 86_400_000,
      'about two years of reports',
    );
    assert.ok(
      reports.some((r) => r.report_type === 'Certificate of Analysis') &&
        new Set(reports.map((r) => r.report_type)).size >= 4,
    );
    assert.ok(
      reports.some((r) => r.status === 'draft' || r.status === 'retracted'),
      'some are not published',
    );
    assert.ok(
      reports.some((r) => !r.download_available),
      'some have no file',
    );
    assert.ok(
      samples.every(
        (s) => s.received_at >= s.collected_at && s.updated_at >= s.received_at.slice(0, 10),
      ),
    );
    const sampleById = new Map(samples.map((s) => [s.sample_id, s]));
    for (const report of reports) {
      for (const id of report.sample_ids) {
        assert.equal(
          sampleById.get(id)?.project_id,
          report.project_id,
          `${report.report_id} lists a sample of its own project`,
        );
      }
    }
  });

  it('serves real PDFs naming the report, its client and samples, also padded for large-file benchmarks', () => {
    const lab = new MockLabServer({ now: FIXED_NOW });
    const report = lab.reportsFor('demo-full-access').find((r) => r.download_available)!;
    const pdf = lab.pdfFor(report.report_id);
    assertValidPdf(pdf);
    const text = pdf.toString('latin1');
    assert.ok(
      text.includes(report.report_id) &&
        text.includes(report.client_id) &&
        text.includes(report.sample_ids[0]!),
    );
    const big = planPdf('Big', ['line'], 5 * 1024 * 1024);
    const bigPdf = Buffer.concat([...big.chunks()]);
    assert.equal(bigPdf.length, big.size);
    assert.ok(Math.abs(big.size - 5 * 1024 * 1024) < 4096);
    assertValidPdf(bigPdf);
  });

  it('scales to 50,000 reports and 100,000 samples', async function () {
    // What the mock must hold and serve, not how fast: 1.4 s alone, past mocha's 20 s among four
    // parallel workers on a busy machine. Listing speed is `npm run bench`'s (its "list" case).
    this.timeout(120_000);
    const lab = new MockLabServer({ reports: 50_000, samples: 100_000, now: FIXED_NOW });
    assert.equal(lab.data.reports.length, 50_000);
    const url = await lab.start();
    try {
      const response = await fetch(`${url}/api/v1/reports?page=700&page_size=50`, {
        headers: { authorization: 'Bearer demo-full-access' },
      });
      const body = (await response.json()) as {
        data: unknown[];
        meta: { total_count: number; total_pages: number };
      };
      assert.equal(body.data.length, 50);
      assert.equal(body.meta.total_count, lab.reportsFor('demo-full-access').length);
    } finally {
      await lab.stop();
    }
  });

  it('answers every request with a request id, and refuses what a read-only API cannot do', async () => {
    const lab = new MockLabServer({ now: FIXED_NOW });
    const url = await lab.start();
    try {
      const auth = { authorization: 'Bearer demo-full-access' };
      const cases: Array<[string, RequestInit, number]> = [
        ['/api/v1/reports', { method: 'POST', headers: auth }, 405],
        ['/api/v1/reports?page=0', { headers: auth }, 400],
        ['/api/v1/reports?page_size=abc', { headers: auth }, 400],
        ['/api/v1/reports?published_since=yesterday', { headers: auth }, 400],
        ['/api/v1/nothing', { headers: auth }, 404],
        ['/api/v1/reports', {}, 401],
        ['/api/v1/samples?page_size=3', { headers: auth }, 200],
      ];
      for (const [path, init, status] of cases) {
        const response = await fetch(`${url}${path}`, init);
        await response.arrayBuffer();
        assert.equal(response.status, status, path);
        assert.match(response.headers.get('x-request-id') ?? '', /^req-\d+-[0-9a-f]{8}$/, path);
      }
    } finally {
      await lab.stop();
    }
  });

  it('amends a report while it runs on POST /__mock/amend/<id>: revision n + 1, amended, new bytes, published after every other, replacing revision n', async () => {
    const lab = new MockLabServer({ now: FIXED_NOW, reports: 12 });
    const url = await lab.start();
    try {
      const auth = { authorization: 'Bearer demo-full-access' };
      const listed = async (): Promise<Array<Record<string, unknown>>> => {
        const response = await fetch(`${url}/api/v1/reports?page_size=50`, { headers: auth });
        return ((await response.json()) as { data: Array<Record<string, unknown>> }).data;
      };
      const before = await listed();
      const target = before.find((report) => report.revision === 1)!;
      const id = String(target.report_id);
      const oldBytes = lab.pdfFor(id);
      const answer = await fetch(`${url}/__mock/amend/${encodeURIComponent(id)}`, {
        method: 'POST',
      });
      assert.equal(answer.status, 200);
      const after = await listed();
      const amended = after.find((report) => report.report_id === id)!;
      assert.equal(after[0]!.report_id, id, 'listed first, newest');
      assert.equal(amended.revision, 2);
      assert.equal(amended.status, 'amended');
      assert.deepEqual(amended.replaces, { report_id: id, revision: 1 });
      assert.ok(
        before.every((report) => String(report.published_at) < String(amended.published_at)),
        'published after every other report',
      );
      assert.ok(!lab.pdfFor(id).equals(oldBytes), 'new bytes');
      const unknown = await fetch(`${url}/__mock/amend/RPT-0000-000000`, { method: 'POST' });
      assert.equal(unknown.status, 404);
      const asGet = await fetch(`${url}/__mock/amend/${id}`);
      await asGet.arrayBuffer();
      assert.equal(asGet.status, 404, 'only POST amends');
      assert.equal((await listed()).find((report) => report.report_id === id)!.revision, 2);
    } finally {
      await lab.stop();
    }
  });
});
