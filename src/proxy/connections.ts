import { isIP, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

/** Who uses a connection for one exchange: its bytes as they arrive, then its end (once, with the error if any). */
export interface ConnectionUser {
  data(bytes: Buffer): void;
  ended(error: NodeJS.ErrnoException | undefined): void;
}

/** One TCP (or TLS) connection to the target, with the listeners it keeps for its whole life. */
export class Connection {
  readonly socket: Socket;
  /** Whether it has carried an exchange before this one (a kept-alive connection the target may have closed). */
  reused = false;
  #user: ConnectionUser | undefined;
  #ended = false;

  constructor(socket: Socket, gone: (connection: Connection) => void) {
    this.socket = socket;
    socket.on('data', (bytes: Buffer) => {
      // Bytes nobody asked for (on a free connection): it is out of step with its requests, so it is closed.
      if (this.#user === undefined) this.destroy();
      else this.#user.data(bytes);
    });
    const end = (error?: NodeJS.ErrnoException): void => {
      if (this.#ended) return;
      this.#ended = true;
      gone(this);
      const user = this.#user;
      this.#user = undefined;
      user?.ended(error);
    };
    socket.on('end', () => end());
    socket.on('error', end);
    socket.on('close', () => end());
    // Set while the connection is free (`Connections.give`): unused that long, it is closed.
    socket.on('timeout', () => {
      if (this.#user === undefined) this.destroy();
    });
  }

  get open(): boolean {
    return !this.#ended && !this.socket.destroyed;
  }

  use(user: ConnectionUser | undefined): void {
    this.#user = user;
  }

  destroy(): void {
    this.#user = undefined;
    this.socket.destroy();
  }

  /** Ends the exchange on it now, the proxy stopping: its user hears `stoppingError`, then the socket is closed. */
  stop(): void {
    const user = this.#user;
    this.destroy();
    user?.ended(stoppingError());
  }
}

/** The code of the error an exchange ends with when the proxy stops before the target answered. */
export const STOPPING = 'PROXY_STOPPING';

const stoppingError = (): NodeJS.ErrnoException =>
  Object.assign(new Error('the proxy stopped before the target answered'), { code: STOPPING });

export interface ConnectionsOptions {
  /** The most connections open at once; requests beyond wait for one to be free. */
  readonly max: number;
  /** How long a free connection is kept open, in ms (below the 5 s a Node.js server keeps an idle one). */
  readonly idleMs: number;
  /** Certificate authority to trust for an https target (PEM). */
  readonly ca?: string | Buffer;
}

/**
 * The kept-alive connections to one target: a free one is reused, the most recently freed first (warm), and closed
 * after `idleMs` unused or sooner when the target's `Keep-Alive: timeout` says so; new ones are opened up to `max`.
 */
export class Connections {
  readonly #url: URL;
  readonly #options: ConnectionsOptions;
  readonly #free: Connection[] = [];
  /** Every open connection, free or in use. */
  readonly #all = new Set<Connection>();
  readonly #waiting: Array<(connection: Connection | undefined) => void> = [];
  #open = 0;
  #closed = false;

  constructor(url: URL, options: ConnectionsOptions) {
    this.#url = url;
    this.#options = options;
  }

  /**
   * Calls `use` with a connection: a free one, a new one, or the next one freed when `max` are open; with
   * undefined once the connections are closed (the proxy is stopping).
   */
  take(use: (connection: Connection | undefined) => void, fresh = false): void {
    if (this.#closed) {
      use(undefined);
      return;
    }
    if (!fresh)
      for (let free = this.#free.pop(); free !== undefined; free = this.#free.pop())
        if (free.open) {
          free.socket.setTimeout(0);
          use(free);
          return;
        }
    if (this.#open < this.#options.max || fresh) use(this.#connect());
    else this.#waiting.push(use);
  }

  /** Takes a connection back after an exchange: kept for the next if `reusable`, else closed. */
  give(connection: Connection, reusable: boolean, keepAliveHint?: string): void {
    connection.use(undefined);
    const idleMs = idleFor(this.#options.idleMs, keepAliveHint);
    if (!reusable || !connection.open || this.#closed || idleMs === 0) {
      connection.destroy(); // its close hands a new connection to a request waiting, if any
      return;
    }
    connection.reused = true;
    const waiter = this.#waiting.shift();
    if (waiter !== undefined) {
      waiter(connection);
      return;
    }
    connection.socket.setTimeout(idleMs);
    this.#free.push(connection);
  }

  /**
   * Closes every connection: the free ones, and those in use, whose exchanges end with `STOPPING`; requests
   * waiting for a connection, and any asking from now on, get none.
   */
  close(): void {
    this.#closed = true;
    for (const free of this.#free.splice(0)) free.destroy();
    for (const waiter of this.#waiting.splice(0)) waiter(undefined);
    for (const connection of [...this.#all]) connection.stop();
  }

  /** A request waiting for a connection gets a new one when one closes. */
  #next(): void {
    if (this.#open >= this.#options.max || this.#closed) return;
    const waiter = this.#waiting.shift();
    if (waiter !== undefined) waiter(this.#connect());
  }

  #connect(): Connection {
    const url = this.#url;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    const socket =
      url.protocol === 'https:'
        ? tlsConnect({
            host,
            port,
            ...(isIP(host) === 0 ? { servername: host } : {}),
            ...(this.#options.ca === undefined ? {} : { ca: this.#options.ca }),
            ALPNProtocols: ['http/1.1'],
          })
        : netConnect({ host, port });
    socket.setNoDelay(true);
    this.#open++;
    const connection = new Connection(socket, (gone) => {
      this.#all.delete(gone);
      this.#open--;
      const at = this.#free.indexOf(gone);
      if (at !== -1) this.#free.splice(at, 1);
      this.#next();
    });
    this.#all.add(connection);
    return connection;
  }
}

/** How long to keep a free connection: `idleMs`, or 1 s less than a `Keep-Alive: timeout=N` the target sent. */
function idleFor(idleMs: number, hint: string | undefined): number {
  const seconds = hint === undefined ? undefined : /(?:^|[,;\s])timeout=(\d+)/i.exec(hint)?.[1];
  return seconds === undefined ? idleMs : Math.max(0, Math.min(idleMs, Number(seconds) * 1000 - 1000));
}
