import * as net from 'node:net';

/**
 * Ports below the range the kernel hands out for port 0 (Linux: 32768–60999): no test server (each
 * listens on port 0) can ever be given one. A port freed after listening on port 0 could be: on a
 * busy machine, a forward proxy of a test beside it was given such a port, and "the cache that
 * cannot be reached" answered 407. None is on fetch's list of bad ports (1, 7, 9, … are), which
 * fetch refuses before it connects.
 */
const CANDIDATES = [47, 61, 97, 433, 739, 911, 997];

/** Whether a connection to 127.0.0.1:port is refused at once (nothing listens there). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/** A loopback port nothing listens on, nor ever will during the tests: a connection is refused at once. */
export async function closedPort(): Promise<number> {
  for (const port of CANDIDATES) {
    if (await refused(port)) {
      return port;
    }
  }
  throw new Error(`every port of ${CANDIDATES.join(', ')} on 127.0.0.1 has a listener`);
}
