import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { answerTimeoutMs } from '../../core/connection/httpClient';
import { MockLabServer } from '../mock/server';
import { FaultServer, httpHead } from '../support/faultServer';
import {
  LEAK_CHECK_TOKEN,
  activateExtension,
  eventually,
  oneAnswerTimeoutDeadline,
  onlyTheseLabs,
  signIn,
} from './helpers';

/** The answer timeout the extension runs with (LAB_DATA_ANSWER_TIMEOUT, from the test host's environment). */
const answerMs = answerTimeoutMs();
/** What Check Connection of one stalled lab may take: one answer timeout, never two. */
const deadlineMs = oneAnswerTimeoutDeadline(answerMs);
/** A page of the reports list, large enough that a byte a tenth of a second never finishes it. */
const PAGE = Buffer.from(
  JSON.stringify({
    data: Array.from({ length: 60 }, (_, i) => ({ report_id: `RPT-2024-${100000 + i}` })),
    meta: { page: 1, page_size: 1, total_pages: 60, total_count: 60 },
  }),
);

/** The report with its wrapped lines joined back (a continuation line is indented four or more). */
function flat(text: string): string {
  return text.replace(/\n {4,}/g, ' ');
}

/** Check Connection of `lab`, timed against the deadline: its verdict (the paragraph after the title, in one line) and its report. */
async function checkOf(lab: string): Promise<{ verdict: string; text: string }> {
  const started = Date.now();
  const text = await vscode.commands.executeCommand<string>('labData.checkConnection', { lab });
  const took = Date.now() - started;
  assert.ok(
    took < deadlineMs,
    `Check Connection took ${took} ms; the deadline is ${deadlineMs} ms`,
  );
  return { verdict: (text.split('\n\n')[1] ?? '').replace(/\n */g, ' '), text: flat(text) };
}

describe('Check Connection tells a stalled lab from a healthy one: the API path asked again, its whole answer read (issue 49)', function () {
  this.timeout(120_000);
  let stuck: MockLabServer;
  let trickle: FaultServer;
  let trickleUrl: string;
  /** Puts back the settings as they were before this suite made its two labs the only ones. */
  let restoreLabs: () => Promise<void>;

  before(async () => {
    const api = await activateExtension();
    stuck = new MockLabServer({ reports: 5, tokens: { [LEAK_CHECK_TOKEN]: { label: 'stuck' } } });
    await stuck.start();
    // The head at once, then the page a byte every 100 ms: far fewer bytes than an answer timeout needs.
    trickle = new FaultServer(() => ({
      kind: 'slow',
      head: httpHead('200 OK', {
        'content-type': 'application/json',
        'content-length': String(PAGE.length),
      }),
      bytes: PAGE,
      chunk: 1,
      everyMs: 100,
    }));
    trickleUrl = await trickle.start();
    restoreLabs = await onlyTheseLabs([
      { name: 'Stuck', baseUrl: stuck.baseUrl },
      { name: 'Trickle', baseUrl: trickleUrl },
    ]);
    await eventually(async () =>
      assert.deepEqual(
        (await api.getState()).labs.map((lab) => lab.name),
        ['Stuck', 'Trickle'],
      ),
    );
  });

  afterEach(() => stuck.setFaults({}));

  after(async () => {
    await vscode.commands
      .executeCommand('labData.signOut', { name: 'Stuck' })
      .then(undefined, () => false);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await restoreLabs();
    await stuck.stop();
    await trickle.stop();
  });

  it('right after a sign-in timed out on a lab that sends its headers and then nothing, it says the lab is stuck (not "answers; not signed in")', async () => {
    stuck.setFaults({ hangBody: { times: Infinity } });
    const started = Date.now();
    const signedIn = await signIn(stuck.baseUrl, LEAK_CHECK_TOKEN, 'Stuck').then(
      (value) => value,
      () => undefined,
    );
    assert.equal(signedIn, undefined, 'the sign-in did not complete');
    assert.ok(Date.now() - started < deadlineMs, `the sign-in took ${Date.now() - started} ms`);
    stuck.takeRequests();
    const { verdict, text } = await checkOf('Stuck');
    assert.match(
      verdict,
      /^“Stuck” sends headers but never the body: the lab’s service is stuck\. Next: /,
    );
    assert.match(
      text,
      /5\. Request without a token: failed, \d+ ms: the lab sent its headers \(HTTP 200\) but never the body: nothing for \d+(\.\d)? s; the lab's service is stuck/,
    );
    assert.doesNotMatch(verdict, /answers; you are not signed in|Next: Sign in/);
    // It asked the API path, as the sign-in did, not the lab's address.
    const asked = stuck.takeRequests();
    assert.deepEqual(
      asked.map((request) => [request.path, request.hadAuthorization]),
      [['/api/v1/reports', false]],
    );
  });

  it('signed in, a lab that sends its headers and then nothing: the request with the token fails as stuck', async () => {
    assert.notEqual(await signIn(stuck.baseUrl, LEAK_CHECK_TOKEN, 'Stuck'), undefined);
    stuck.setFaults({ hangBody: { times: Infinity } });
    stuck.takeRequests();
    const { verdict, text } = await checkOf('Stuck');
    assert.match(
      verdict,
      /^“Stuck” sends headers but never the body: the lab’s service is stuck\. Next: /,
    );
    assert.match(
      text,
      /5\. Authenticated request: failed, \d+ ms: The lab at http:\/\/127\.0\.0\.1:\d+ sent its headers, then nothing for \d+ s\./,
    );
    const asked = stuck.takeRequests();
    assert.deepEqual(
      asked.map((request) => [request.path, request.hadAuthorization]),
      [['/api/v1/reports', true]],
      'one request with the token, not retried',
    );
  });

  it('signed in, a lab that accepts and never answers: no answer within the answer timeout', async () => {
    stuck.setFaults({ hangHeaders: { times: Infinity } });
    const { verdict, text } = await checkOf('Stuck');
    assert.match(
      verdict,
      /^“Stuck” accepted the connection but sent no answer: it may be down or overloaded\. Next: /,
    );
    assert.match(
      text,
      new RegExp(
        `5\\. Authenticated request: failed, \\d+ ms: the lab accepted the connection but sent no answer within ${answerMs / 1000} s`,
      ),
    );
  });

  it('a lab that trickles its answer a byte at a time: too slow to be used', async () => {
    const { verdict, text } = await checkOf('Trickle');
    assert.match(
      verdict,
      /^“Trickle” sends its answer too slowly to be used \(a few bytes a second\)\. Next: /,
    );
    assert.match(
      text,
      /5\. Request without a token: failed, \d+ ms: the lab sent its answer too slowly \(HTTP 200\): \d+ bytes in \d+(\.\d)? s/,
    );
  });
});
