import {
  FallbackTransport,
  FetchTransport,
  isUntrustedChain,
} from '../../../../core/connection/fetchTransport';
import { transportContract } from './transportContract';
import * as assert from 'node:assert/strict';
import { LabApi } from '../../../../core/api/labApi';
import { defaultLabDefinition } from '../../../../core/api/labDefinition';
import { parseBaseUrl } from '../../../../core/connection/baseUrl';
import { DIRECT, loadCertificateAuthorities } from '../../../../core/connection/network';
import { UndiciTransport } from '../../../../core/connection/undiciTransport';
import { MockLabServer } from '../../../mock/server';
import { makeTestCertificates, type TestCertificates } from '../../../support/certificates';
import { SECRET_TOKEN } from '../../helpers';

// VS Code's transport, over Node's own `fetch` (the extension host's is the same `fetch`, patched by
// VS Code for its proxies and certificates): every promise the undici transport keeps, kept here too.
transportContract(
  'fetch',
  (settings) =>
    new FetchTransport({ ...settings, name: 'fetch', fetch: (input, init) => fetch(input, init) }),
);

describe("VS Code's transport first, Lab Data's own when VS Code's does not trust the lab (a CA only NODE_EXTRA_CA_CERTS holds)", function () {
  this.timeout(30_000);
  let certs: TestCertificates;
  let server: MockLabServer;

  before(async () => {
    certs = makeTestCertificates();
    server = new MockLabServer({
      reports: 12,
      tls: { key: certs.key, cert: certs.cert },
      tokens: { [SECRET_TOKEN]: { label: 'leak check' } },
    });
    await server.start();
  });
  after(async () => {
    await server.stop();
    certs.remove();
  });

  it('a chain the first transport does not trust switches once, for good, and the request succeeds; other failures do not switch', async () => {
    // The first: a fetch that trusts only Node's roots (as VS Code's does not add NODE_EXTRA_CA_CERTS); the second: undici with the CA, as NODE_EXTRA_CA_CERTS gives it.
    const { ca } = loadCertificateAuthorities([certs.caFile]);
    const switched: unknown[] = [];
    let seconds = 0;
    const lab = defaultLabDefinition(parseBaseUrl(server.baseUrl));
    const api = new LabApi({
      lab,
      token: SECRET_TOKEN,
      network: DIRECT,
      transport: (settings) =>
        new FallbackTransport(
          new FetchTransport({
            ...settings,
            name: 'VS Code',
            fetch: (input, init) => fetch(input, init),
          }),
          () => (seconds++, new UndiciTransport({ ...settings, network: { ...DIRECT, ca } })),
          isUntrustedChain,
          (error) => switched.push(error),
        ),
    });
    try {
      const first = await api.listReports({ pageSize: 5 });
      assert.equal(first.items.length, 5);
      await api.listReports({ pageSize: 5, page: 2 });
      assert.equal(switched.length, 1, 'switched once');
      assert.ok(isUntrustedChain(switched[0]), String(switched[0]));
      assert.equal(seconds, 1, 'the second transport is built once');
    } finally {
      await api.close();
    }
    assert.equal(
      isUntrustedChain(
        Object.assign(new Error('fetch failed'), {
          cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
        }),
      ),
      false,
      'a refused connection is not a trust problem',
    );
  });
});
