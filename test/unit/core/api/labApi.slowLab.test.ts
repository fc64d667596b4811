import * as assert from 'node:assert/strict';
import { LabApiError } from '../../../../core/errors/errors';
import { FaultServer, httpHead } from '../../../support/faultServer';
import {
  FAST_RETRY,
  FAST_TIMEOUTS,
  TRANSPORTS,
  faultClient,
  sentence,
  within,
} from '../connection/faultHarness';

const REPORTS = Array.from({ length: 5 }, (_, i) => ({ report_id: `R-${i + 1}` }));
const PAGE = Buffer.from(
  JSON.stringify({
    data: REPORTS,
    meta: { page: 1, page_size: 50, total_pages: 1, total_count: REPORTS.length },
  }),
);
const ANSWER = Buffer.concat([
  httpHead('200 OK', { 'Content-Type': 'application/json', 'Content-Length': String(PAGE.length) }),
  PAGE,
]);
/** Later than the headers timeout, with room for undici's coarse timers (about 1 s late at most). */
const LATE_MS = FAST_TIMEOUTS.headersMs + 1_500;
const ATTEMPTS = 1 + FAST_RETRY.retries;

// Issue 38, item 4: a page that arrives after the headers timeout is a timeout, retried as
// docs/lab-api.md says (3 retries), never a hang, on both transports.
describe('listing under a lab that answers slowly', function () {
  this.timeout(20_000);
  let server: FaultServer;
  let baseUrl: string;
  before(async () => {
    server = new FaultServer(() => ({ kind: 'silent' }));
    baseUrl = await server.start();
  });
  afterEach(() => server.dropAll());
  after(() => server.stop());

  for (const transport of TRANSPORTS) {
    it(`over ${transport.name}: pages later than the headers timeout are timeouts, retried; the first in time is the list`, async () => {
      server.answerWith((request) =>
        request < 2
          ? { kind: 'late', bytes: ANSWER, afterMs: LATE_MS }
          : { kind: 'cut', bytes: ANSWER, cut: 'fin', delivery: 'burst' },
      );
      const api = faultClient(baseUrl, transport.make);
      try {
        const { value, error } = await within(10_000, api.listReports({ pageSize: 50 }), 'listing');
        assert.equal(error, undefined, String(error));
        assert.deepEqual(
          value!.items.map((report) => report.report_id),
          REPORTS.map((report) => report.report_id),
        );
        assert.equal(server.requests, 3, 'two timed out, the third answered');
      } finally {
        await api.close();
      }
    });

    it(`over ${transport.name}: a lab whose every page is late fails with the timeout sentence after 1 + ${FAST_RETRY.retries} attempts`, async () => {
      server.answerWith(() => ({ kind: 'late', bytes: ANSWER, afterMs: LATE_MS }));
      const api = faultClient(baseUrl, transport.make);
      try {
        const started = Date.now();
        const { value, error } = await within(15_000, api.listReports({ pageSize: 50 }), 'listing');
        assert.equal(value, undefined);
        assert.ok(error instanceof LabApiError, String(error));
        assert.equal(error.code, 'timeout');
        assert.match(error.message, sentence('timeout'));
        assert.match(error.message, /waiting for an answer/);
        assert.equal(server.requests, ATTEMPTS);
        assert.ok(
          Date.now() - started < ATTEMPTS * LATE_MS,
          'each attempt gave up before its page came',
        );
      } finally {
        await api.close();
      }
    });
  }
});
