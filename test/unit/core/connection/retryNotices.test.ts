import * as assert from 'node:assert/strict';
import { startMockLab, type MockLab } from '../../helpers';
import {
  RetryNotices,
  retryCause,
  type RetryNotice,
} from '../../../../core/connection/retryNotices';

describe('retry notices: a client says each retry before it makes it', () => {
  let lab: MockLab;
  before(async () => {
    lab = await startMockLab({ reports: 5 });
  });
  after(async () => {
    await lab.close();
  });

  it('tells the listener it was built with and those a run adds (until removed) which retry of how many, after what', async () => {
    lab.server.setFaults({ hangHeaders: { times: 2, path: /\/reports$/ } });
    const built: RetryNotice[] = [];
    const api = lab.api(undefined, {
      timeouts: { headersMs: 200 },
      retry: { retries: 3, baseDelayMs: 5, maxDelayMs: 10 },
      onRetry: (notice) => built.push(notice),
    });
    const run: RetryNotice[] = [];
    const stop = api.onRetry((notice) => run.push(notice));
    assert.equal((await api.listReports({ pageSize: 2 })).items.length, 2);
    assert.deepEqual(
      run.map((notice) => [notice.attempt, notice.of, retryCause(notice), notice.error.code]),
      [
        [1, 3, 'noAnswer', 'timeout'],
        [2, 3, 'noAnswer', 'timeout'],
      ],
    );
    assert.equal(run[0]!.lab, api.lab.name, 'names the lab');
    assert.match(run[0]!.path, /\/reports$/);
    assert.equal(built.length, 2);
    stop();
    lab.server.setFaults({ status: { status: 503, times: 1 } });
    await api.listReports({ pageSize: 1 });
    assert.equal(run.length, 2, 'a removed listener hears nothing more');
    assert.equal(built.length, 3);
    assert.equal(retryCause(built[2]!), 'status');
    await api.close();
  });

  it('an interactive client makes no retry after a timeout, so says none', async () => {
    lab.server.setFaults({ hangHeaders: { times: 1, path: /\/reports$/ } });
    const api = lab.api(undefined, {
      timeouts: { headersMs: 200 },
      retry: { retries: 3, baseDelayMs: 5 },
      interactive: true,
    });
    const heard: RetryNotice[] = [];
    api.onRetry((notice) => heard.push(notice));
    await assert.rejects(api.listReports());
    assert.deepEqual(heard, []);
    await api.close();
  });

  it('a listener that throws does not stop the others', () => {
    const notices = new RetryNotices(() => {
      throw new Error('broken listener');
    });
    const heard: number[] = [];
    notices.listen((notice) => heard.push(notice.attempt));
    notices.notify({ attempt: 1 } as RetryNotice);
    assert.deepEqual(heard, [1]);
  });
});
