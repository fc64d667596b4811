import * as assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { sendFollowingRedirects } from '../../../../core/connection/redirects';
import type {
  Transport,
  TransportRequest,
  TransportResponse,
} from '../../../../core/connection/transport';
import { LabApiError } from '../../../../core/errors/errors';
import { rejection } from '../../helpers';

/** A transport that answers each request with the next of `answers` and keeps what was sent. */
function scripted(answers: Array<Pick<TransportResponse, 'status' | 'headers'>>): {
  transport: Transport;
  sent: TransportRequest[];
} {
  const sent: TransportRequest[] = [];
  const transport: Transport = {
    name: 'scripted',
    proxyFor: () => undefined,
    send: (request) => {
      sent.push(request);
      const next = answers.shift() ?? { status: 200, headers: {} };
      return Promise.resolve({ ...next, body: Readable.from([Buffer.from('x')]) });
    },
    close: () => Promise.resolve(),
  };
  return { transport, sent };
}

const LAB = {
  origin: 'https://lab.test',
  authorization: () => 'Bearer secret-token-1234',
  userAgent: 'lab-data-test',
  mapError: (error: unknown) => new LabApiError('network', String(error), {}),
};
const SPEC = { accept: 'application/json' };
const context = (): { path: string; params: Record<string, string> } => ({
  path: '/api/v1/reports',
  params: {},
});

describe('sending a request, following redirects (the token only to the lab’s own origin)', () => {
  it('follows a redirect on the lab’s origin with the token, and one elsewhere without it, saying so', async () => {
    const { transport, sent } = scripted([
      { status: 301, headers: { location: '/api/v1/reports/' } },
      { status: 302, headers: { location: 'https://files.elsewhere.test/r.pdf' } },
      { status: 200, headers: {} },
    ]);
    const logged: string[] = [];
    const { response, url } = await sendFollowingRedirects(
      transport,
      new URL('https://lab.test/api/v1/reports'),
      SPEC,
      context(),
      { ...LAB, log: (message) => logged.push(message) },
    );
    response.body.destroy();
    assert.equal(response.status, 200);
    assert.equal(url.toString(), 'https://files.elsewhere.test/r.pdf');
    assert.deepEqual(
      sent.map((request) => [request.url.toString(), request.headers.authorization]),
      [
        ['https://lab.test/api/v1/reports', 'Bearer secret-token-1234'],
        ['https://lab.test/api/v1/reports/', 'Bearer secret-token-1234'],
        ['https://files.elsewhere.test/r.pdf', undefined],
      ],
    );
    assert.ok(sent.every((request) => request.headers['user-agent'] === 'lab-data-test'));
    assert.deepEqual(logged, [
      '[http] following a redirect to https://files.elsewhere.test without the access token',
    ]);
  });

  it('refuses a redirect to plain http (except loopback) and a sixth hop', async () => {
    const insecure = scripted([{ status: 302, headers: { location: 'http://lab.test/x' } }]);
    const error = await rejection(
      sendFollowingRedirects(
        insecure.transport,
        new URL('https://lab.test/api/v1/reports'),
        SPEC,
        context(),
        { ...LAB, log: () => undefined },
      ),
    );
    assert.ok(error instanceof LabApiError);
    assert.equal(error.code, 'insecureRedirect');
    assert.equal(error.text?.id, 'redirectInsecure');

    const loop = scripted(
      Array.from({ length: 7 }, () => ({ status: 302, headers: { location: '/again' } })),
    );
    const tooMany = await rejection(
      sendFollowingRedirects(loop.transport, new URL('https://lab.test/a'), SPEC, context(), {
        ...LAB,
        log: () => undefined,
      }),
    );
    assert.equal((tooMany as LabApiError).text?.id, 'redirectTooMany');
    assert.equal(loop.sent.length, 6, 'the first request and five redirects');

    const local = scripted([
      { status: 302, headers: { location: 'http://127.0.0.1:9/x' } },
      { status: 200, headers: {} },
    ]);
    const { response } = await sendFollowingRedirects(
      local.transport,
      new URL('http://127.0.0.1:8/a'),
      SPEC,
      context(),
      { ...LAB, origin: 'http://127.0.0.1:8', log: () => undefined },
    );
    response.body.destroy();
    assert.equal(response.status, 200, 'plain http to loopback is followed');
  });

  it('a request the transport cannot send is an attempt failure, mapped by the client', async () => {
    const transport: Transport = {
      name: 'down',
      proxyFor: () => undefined,
      send: () => Promise.reject(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })),
      close: () => Promise.resolve(),
    };
    const failure = await rejection(
      sendFollowingRedirects(transport, new URL('https://lab.test/a'), SPEC, context(), {
        ...LAB,
        log: () => undefined,
      }),
    );
    assert.equal((failure as { error?: LabApiError }).error?.code, 'network');
    assert.equal((failure as { retryable?: boolean }).retryable, true);
  });
});
