import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { tlsStep } from '../../../../../core/connection/check/tls';

describe('Check Connection’s TLS step', () => {
  it('a server that speaks no TLS fails the step, and the socket is not kept', async () => {
    const accepted: net.Socket[] = [];
    const server = net.createServer((socket) => {
      accepted.push(socket);
      socket.on('error', () => undefined);
      socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as net.AddressInfo;
      const socket = net.connect({ host: '127.0.0.1', port });
      await new Promise((resolve) => socket.once('connect', resolve));
      const { secure, ...step } = await tlsStep(
        socket,
        new URL(`https://127.0.0.1:${port}`),
        { name: 'Plain', baseUrl: `https://127.0.0.1:${port}`, network: { noProxy: [] }, env: {} },
        2_000,
      );
      socket.destroy();
      assert.equal(secure, undefined);
      assert.equal(step.outcome, 'failed');
      assert.ok(step.problem === 'tlsFailed' || step.problem === 'untrusted', step.problem);
    } finally {
      accepted.forEach((socket) => socket.destroy());
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
