import * as net from 'node:net';

/** How a connection ends: a FIN (`end()`), or a RST (`resetAndDestroy()`). */
export type Cut = 'fin' | 'rst';

/**
 * How the bytes before the cut travel: all in one write with the cut in the same tick ("burst"),
 * in one write and the cut 50 ms later ("pause"), or one byte a tick and the cut right after the
 * last ("trickle").
 */
export type Delivery = 'burst' | 'pause' | 'trickle';

/** What the server does with one request. */
export type FaultAnswer =
  /** Accepts the connection, reads the request, never answers. */
  | { readonly kind: 'silent' }
  /**
   * Sends `bytes` (the head, and part of the body or all of it) as `delivery` says, then cuts; a
   * trickle sends its last `trickle` bytes (all by default) one at a time, the rest in one write.
   */
  | {
      readonly kind: 'cut';
      readonly bytes: Buffer;
      readonly cut: Cut;
      readonly delivery: Delivery;
      readonly trickle?: number;
      /** How long a "pause" delivery waits before the cut (50 ms by default). */
      readonly pauseMs?: number;
    }
  /** Says nothing for `afterMs`, then sends `bytes` and closes. */
  | { readonly kind: 'late'; readonly bytes: Buffer; readonly afterMs: number }
  /** Sends `bytes` then keeps the connection open and says nothing more. */
  | { readonly kind: 'stall'; readonly bytes: Buffer }
  /** Sends `head` (if any) at once, then `bytes` a `chunk` at a time, `everyMs` apart, then closes. */
  | {
      readonly kind: 'slow';
      readonly head?: Buffer;
      readonly bytes: Buffer;
      readonly chunk: number;
      readonly everyMs: number;
    };

/** An HTTP/1.1 head: status line and headers, with the blank line that ends them. */
export function httpHead(status: string, headers: Readonly<Record<string, string>>): Buffer {
  const lines = [`HTTP/1.1 ${status}`, ...Object.entries(headers).map(([n, v]) => `${n}: ${v}`)];
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

/** `body` as chunked transfer coding, in chunks of `size` bytes, with the last chunk and its CRLF. */
export function chunked(body: Buffer, size: number): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length; at += size) {
    const piece = body.subarray(at, at + size);
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

/**
 * A raw TCP server on 127.0.0.1 that answers every request as `answer` says, byte for byte, and
 * ends connections exactly when and how it is told: what a server, proxy or load balancer that
 * fails mid-response looks like from the client, including the orders of events a friendlier
 * server (Node's `http`) never produces. It remembers when it cut, so a test can time the client
 * from the fault.
 */
export class FaultServer {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Requests received so far. */
  requests = 0;
  /** When the first request since {@link answerWith} arrived (Date.now()); 0 before one has. */
  firstRequestAt = 0;
  /** When the last connection was cut, or the last byte sent (Date.now()). */
  lastFaultAt = 0;
  /**
   * The longest a cut answer took to deliver since {@link answerWith} (from the request to the cut,
   * or to the client's leaving while it was still being sent; a pause's own wait not counted).
   * Its bytes go out in a few milliseconds: when the process is starved of CPU this shows it, and
   * a client's timeout is then what it should do.
   */
  slowestDeliveryMs = 0;

  constructor(private answer: (request: number, head: string) => FaultAnswer) {
    this.server = net.createServer((socket) => this.accept(socket));
  }

  /** Answers the next requests as `answer` says, and counts them from zero again. */
  answerWith(answer: (request: number, head: string) => FaultAnswer): void {
    this.answer = answer;
    this.requests = 0;
    this.firstRequestAt = 0;
    this.slowestDeliveryMs = 0;
  }

  /** Listens on a free loopback port; resolves with the base URL. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  /** Ends every connection and stops listening. */
  async stop(): Promise<void> {
    this.dropAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Ends every connection still open (a silent or stalled one), and every pending send. */
  dropAll(): void {
    this.timers.forEach(clearTimeout);
    this.timers.clear();
    this.sockets.forEach((socket) => socket.destroy());
    this.sockets.clear();
  }

  private later(ms: number, action: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      action();
    }, ms);
    this.timers.add(timer);
  }

  private accept(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    let received = '';
    const onData = (data: Buffer): void => {
      received += data.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      if (end >= 0) {
        socket.off('data', onData);
        const head = received.slice(0, end);
        if (this.requests === 0) {
          this.firstRequestAt = Date.now();
        }
        this.respond(socket, this.answer(this.requests++, head));
      }
    };
    socket.on('data', onData);
  }

  private respond(socket: net.Socket, answer: FaultAnswer): void {
    switch (answer.kind) {
      case 'silent':
        this.lastFaultAt = Date.now();
        return;
      case 'late':
        this.lastFaultAt = Date.now();
        this.later(answer.afterMs, () => {
          if (!socket.destroyed) {
            socket.end(answer.bytes);
          }
        });
        return;
      case 'stall':
        socket.write(answer.bytes);
        this.lastFaultAt = Date.now();
        return;
      case 'slow':
        if (answer.head) {
          socket.write(answer.head);
        }
        this.slowly(socket, answer.bytes, answer.chunk, answer.everyMs);
        return;
      case 'cut':
        this.cutAfter(socket, answer, answer.trickle ?? answer.bytes.length);
    }
  }

  private cut(socket: net.Socket, how: Cut): void {
    this.lastFaultAt = Date.now();
    if (how === 'fin') {
      socket.end();
    } else {
      socket.resetAndDestroy();
    }
  }

  private cutAfter(
    socket: net.Socket,
    { bytes, cut: how, delivery, pauseMs = 50 }: Extract<FaultAnswer, { kind: 'cut' }>,
    trickle: number,
  ): void {
    const askedAt = Date.now();
    const delivered = (): void => {
      const took = Date.now() - askedAt - (delivery === 'pause' ? pauseMs : 0);
      this.slowestDeliveryMs = Math.max(this.slowestDeliveryMs, took);
    };
    if (delivery === 'trickle') {
      let at = Math.max(0, bytes.length - trickle);
      if (at > 0) {
        socket.write(bytes.subarray(0, at));
      }
      const next = (): void => {
        if (socket.destroyed) {
          delivered();
          return;
        }
        if (at >= bytes.length) {
          delivered();
          this.cut(socket, how);
          return;
        }
        socket.write(bytes.subarray(at, at + 1));
        at++;
        setImmediate(next);
      };
      next();
      return;
    }
    socket.write(bytes);
    if (delivery === 'burst') {
      delivered();
      this.cut(socket, how);
    } else {
      this.later(pauseMs, () => {
        delivered();
        this.cut(socket, how);
      });
    }
  }

  private slowly(socket: net.Socket, bytes: Buffer, chunk: number, everyMs: number): void {
    let at = 0;
    const next = (): void => {
      if (socket.destroyed) {
        return;
      }
      this.lastFaultAt = Date.now();
      if (at >= bytes.length) {
        socket.end();
        return;
      }
      socket.write(bytes.subarray(at, at + chunk));
      at += chunk;
      this.later(everyMs, next);
    };
    next();
  }
}
