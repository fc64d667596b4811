import * as assert from 'node:assert/strict';
import { LabApiError } from '../../../../core/errors/errors';
import type { Report } from '../../../../core/api/records';
import { FULL, rejection, startMockLab, type MockLab } from '../../helpers';

async function allReports(
  lab: MockLab,
  token: string,
  query: Parameters<ReturnType<MockLab['api']>['iterateReports']>[0] = {},
): Promise<Report[]> {
  const reports: Report[] = [];
  for await (const page of lab.api(token).iterateReports({ pageSize: 100, ...query })) {
    reports.push(...page.items);
  }
  return reports;
}

describe('LabApi against the mock lab', () => {
  let lab: MockLab;
  before(async () => {
    lab = await startMockLab();
  });
  after(async () => {
    await lab.close();
  });
  beforeEach(() => {
    lab.server.setFaults({});
    lab.server.takeRequests();
  });

  it('lists published reports newest first, with every field and the pagination metadata', async () => {
    const page = await lab.api().listReports({ pageSize: 20 });
    const expected = lab.server.reportsFor(FULL);
    assert.equal(page.items.length, 20);
    assert.equal(page.totalCount, expected.length);
    assert.equal(page.totalPages, Math.ceil(expected.length / 20));
    assert.equal(page.page, 1);
    assert.ok(page.hasMore);
    assert.deepEqual(
      page.items.map((report) => report.report_id),
      expected.slice(0, 20).map((report) => report.report_id),
    );
    const first = page.items[0]!;
    const source = expected[0]!;
    assert.equal(first.published_at, source.published_at);
    assert.deepEqual(first.sample_ids, source.sample_ids);
    assert.equal(first.download_available, source.download_available);
    // Fields the spec does not name are kept.
    assert.equal(first.raw.title, source.title);
    assert.equal(first.raw.lab_name, source.lab_name);
    const [request] = lab.server.takeRequests();
    assert.equal(request!.accept, 'application/json');
    assert.deepEqual(request!.query, { page: '1', page_size: '20' });
  });

  it('iterates every page exactly once', async () => {
    const reports = await allReports(lab, FULL, { pageSize: 50 });
    const expected = lab.server.reportsFor(FULL);
    assert.deepEqual(
      reports.map((r) => r.report_id),
      expected.map((r) => r.report_id),
    );
    assert.equal(lab.server.takeRequests().length, Math.ceil(expected.length / 50));
    assert.ok(
      reports.every((r) => r.status === 'published' || r.status === 'amended'),
      'only customer-facing statuses are visible',
    );
  });

  it('applies every report filter on the server, sending only what is given', async () => {
    const since = '2025-06-01T00:00:00Z';
    const expected = lab.server
      .reportsFor(FULL)
      .filter((r) => r.published_at >= since && r.status === 'amended' && r.client_id === 'C-1001')
      .map((r) => r.report_id);
    assert.ok(expected.length > 0, 'the demo data has matches for this filter');
    const reports = await allReports(lab, FULL, {
      publishedSince: '2025-06-01',
      status: 'amended',
      clientId: 'C-1001',
    });
    assert.deepEqual(
      reports.map((r) => r.report_id),
      expected,
    );
    const request = lab.server.takeRequests()[0]!;
    assert.deepEqual(request.query, {
      page: '1',
      page_size: '100',
      published_since: since,
      status: 'amended',
      client_id: 'C-1001',
    });

    const byProject = await allReports(lab, FULL, {
      projectId: 'P-2006',
      updatedSince: '2025-01-01T00:00:00Z',
    });
    assert.deepEqual(
      byProject.map((r) => r.report_id),
      lab.server
        .reportsFor(FULL)
        .filter((r) => r.project_id === 'P-2006' && r.updated_at >= '2025-01-01T00:00:00Z')
        .map((r) => r.report_id),
    );
  });

  it('gets one report, and 404s for unknown, unpublished or out-of-scope ids', async () => {
    const id = lab.server.reportsFor(FULL)[3]!.report_id;
    const report = await lab.api().getReport(id);
    assert.equal(report.report_id, id);
    const hidden = lab.server.data.reports.find((r) => r.status === 'draft')!;
    for (const [token, reportId] of [
      [FULL, 'RPT-0000-000000'],
      [FULL, hidden.report_id],
      [
        'demo-client-c1001',
        lab.server.data.reports.find((r) => r.client_id !== 'C-1001' && r.status === 'published')!
          .report_id,
      ],
    ] as const) {
      const error = (await rejection(lab.api(token).getReport(reportId))) as LabApiError;
      assert.equal(error.code, 'notFound', reportId);
      assert.equal(error.status, 404);
      assert.match(error.path!, /^\/api\/v1\/reports\//);
      assert.match(error.requestId!, /^req-/);
      assert.match(error.message, /Not found/);
    }
  });

  it('lists and gets clients, and lists projects by client', async () => {
    const clients = await lab.api().listClients();
    assert.deepEqual(
      clients.items.map((c) => c.client_id),
      lab.server.data.clients.map((c) => c.client_id),
    );
    assert.equal(clients.items[0]!.name, 'Riverside Water Authority');
    assert.equal((await lab.api().getClient('C-1002')).name, 'Northfield Agronomy Cooperative');
    const projects = await lab.api().listProjects({ clientId: 'C-1003' });
    assert.deepEqual(
      projects.items.map((p) => p.project_id),
      lab.server.data.projects.filter((p) => p.client_id === 'C-1003').map((p) => p.project_id),
    );
    assert.ok(projects.items.every((p) => p.name && p.status && p.updated_at));
    const all = await lab.api().listProjects({ pageSize: 200 });
    assert.ok(all.items.length >= 15, `about fifteen projects, got ${all.items.length}`);
  });

  it('lists samples whole, newest first, with received_since', async () => {
    const page = await lab.api().listSamples({ pageSize: 10, receivedSince: '2026-10-01' });
    const expected = lab.server.data.samples.filter((s) => s.received_at >= '2026-10-01T00:00:00Z');
    assert.equal(page.totalCount, expected.length);
    assert.deepEqual(
      page.items.map((s) => s.id),
      expected.slice(0, 10).map((s) => s.sample_id),
    );
    assert.deepEqual(page.items[0]!.raw, expected[0]);
  });

  it('scopes a client token to its client, and a project token to its project', async () => {
    const clientReports = await allReports(lab, 'demo-client-c1001');
    assert.ok(clientReports.length > 0);
    assert.ok(clientReports.every((r) => r.client_id === 'C-1001'));
    const clients = await lab.api('demo-client-c1001').listClients();
    assert.deepEqual(
      clients.items.map((c) => c.client_id),
      ['C-1001'],
    );
    const projectReports = await allReports(lab, 'demo-project-p2006');
    assert.ok(projectReports.length > 0 && projectReports.every((r) => r.project_id === 'P-2006'));
    const projects = await lab.api('demo-project-p2006').listProjects();
    assert.deepEqual(
      projects.items.map((p) => p.project_id),
      ['P-2006'],
    );
  });

  it('answers 403 for filters and data areas outside the scope, with a distinct message', async () => {
    const cases: Array<[string, Promise<unknown>]> = [
      ['client filter', lab.api('demo-client-c1001').listReports({ clientId: 'C-1002' })],
      ['project filter', lab.api('demo-project-p2006').listProjects({ projectId: 'P-2001' })],
      ['data area', lab.api('demo-no-reports').listReports()],
    ];
    for (const [name, promise] of cases) {
      const error = (await rejection(promise)) as LabApiError;
      assert.equal(error.code, 'forbidden', name);
      assert.equal(error.status, 403);
      assert.match(error.message, /outside the scope/);
    }
    assert.equal((await lab.api('demo-no-reports').listClients()).items.length, 7);
  });

  it('answers 401 for missing, unknown, expired and revoked tokens, asking to sign in again', async () => {
    for (const token of ['', 'no-such-token', 'demo-expired', 'demo-revoked']) {
      const error = (await rejection(lab.api(token).listReports())) as LabApiError;
      assert.equal(error.code, 'unauthorized', token);
      assert.equal(error.status, 401);
      assert.match(error.message, /sign in again/);
      assert.equal(error.attempts, undefined, '401 is never retried');
    }
    assert.equal(lab.server.takeRequests().length, 4);
  });

  it('answers 400 for bad filters the server rejects, without retrying', async () => {
    const error = (await rejection(lab.api().listReports({ status: 'draft' }))) as LabApiError;
    assert.equal(error.code, 'badRequest');
    assert.match(error.message, /invalid/);
    assert.match(error.reason!, /status must be one of/);
    assert.match(error.message, /The lab said: “.*status must be one of/);
    assert.equal(lab.server.takeRequests().length, 1);
    const tooBig = (await rejection(lab.api().listReports({ pageSize: 500 }))) as LabApiError;
    assert.equal(tooBig.status, 400);
  });

  it('refuses invalid input before sending anything', async () => {
    for (const promise of [
      lab.api().listReports({ publishedSince: 'last week' }),
      lab.api().getReport('..'),
      lab.api().listSamples({ receivedSince: '2024-01-01T08:00' }),
    ]) {
      const error = (await rejection(promise)) as LabApiError;
      assert.equal(error.code, 'invalidInput');
    }
    assert.equal(lab.server.takeRequests().length, 0);
  });
});

describe('tenant variants', () => {
  it('a tenant without client records answers 404 on /clients, projects still work', async () => {
    const lab = await startMockLab({ tenant: 'no-clients' });
    try {
      const error = (await rejection(lab.api().listClients())) as LabApiError;
      assert.equal(error.code, 'notFound');
      assert.ok((await lab.api().listProjects()).items.length > 0);
    } finally {
      await lab.close();
    }
  });

  it('a tenant without project structures answers 404 on /projects, clients still work', async () => {
    const lab = await startMockLab({ tenant: 'no-projects' });
    try {
      const error = (await rejection(lab.api().listProjects())) as LabApiError;
      assert.equal(error.code, 'notFound');
      assert.ok((await lab.api().listClients()).items.length > 0);
    } finally {
      await lab.close();
    }
  });

  it('works under a path prefix', async () => {
    const lab = await startMockLab({ basePath: '/lims' });
    try {
      assert.ok(lab.baseUrl.endsWith('/lims'));
      assert.equal((await lab.api().listReports({ pageSize: 1 })).items.length, 1);
    } finally {
      await lab.close();
    }
  });

  it("reads a report PDF into memory for a preview: the exact bytes, all pages, with the download's checks", async () => {
    const lab = await startMockLab();
    try {
      const id = lab.server.multiPageReportId!;
      const bytes = await lab.api().fetchReportFile(id);
      assert.deepEqual(bytes, lab.server.pdfFor(id));
      assert.match(bytes.toString('latin1'), /\/Count 60 /);
      const [request] = lab.server.takeRequests();
      assert.equal(request!.accept, 'application/pdf');

      const tooLarge = (await rejection(
        lab.api().fetchReportFile(id, { maxBytes: 1024 }),
      )) as LabApiError;
      assert.equal(tooLarge.code, 'invalidResponse');
      assert.match(tooLarge.message, /larger than the 0 MiB limit/);
      lab.server.setFaults({ notPdf: { times: 1 } });
      assert.match(
        ((await rejection(lab.api().fetchReportFile(id))) as LabApiError).message,
        /not a PDF/,
      );
      lab.server.setFaults({ shortFile: { fraction: 0.5, times: 3 } });
      const short = (await rejection(lab.api().fetchReportFile(id))) as LabApiError;
      assert.ok(short.code === 'invalidResponse' || short.code === 'network', short.message);
    } finally {
      await lab.close();
    }
  });
});
