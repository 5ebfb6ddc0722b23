// The websocket to the server, in the JSON encoding (subprotocol solrace.v1.json).
//
// Requests return promises of their result's fields, or reject with ServerError (the
// server's code and sentence) or ConnectionLost. The connection says hello by itself, and
// after a drop it reconnects with growing pauses and resumes the session with the token
// and the number of the last event seen, so the server replays what was missed. Requests
// marked `resend` (actions carry their own sequence number, so the server never applies
// one twice) are sent again after a resume instead of failing.

const SUBPROTOCOL = "solrace.v1.json";
const PROTOCOL_VERSION = 1;
const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 8000];
const CLOSE_REPLACED = 4001;
const CLOSE_SIGNED_OUT = 4003;
const RATE_PER_S = 20; // below the server's 30 per second, so it never has to refuse us
const BURST = 40;

export class ServerError extends Error {
  constructor(code, message, of = null) {
    super(message);
    this.code = code;
    this.of = of;
  }
}

export class ConnectionLost extends Error {
  constructor() {
    super("the connection to the server was lost; try again");
    this.code = "connection_lost";
  }
}

export class Connection extends EventTarget {
  /**
   * Listeners: "status" (detail: "connecting" | "online" | "reconnecting" | "replaced" |
   * "failed"), "welcome" (detail: the welcome, with `resumed`), "event" (detail: a numbered
   * event), "watch" (detail: a spectator feed item).
   */
  constructor(url, { name, token = null, device = null }) {
    super();
    this.device = device; // this browser's id (storage.js), said in every hello
    this.url = url;
    this.name = name;
    this.token = token;
    this.player = null;
    this.account = null; // the account's username, or null for a guest
    this.lastEvent = null; // null until this page has had a session: then a resume replays
    this.offsetMs = 0; // server clock minus ours
    this.socket = null;
    this.ready = false;
    this.nextId = 1;
    this.pending = new Map(); // id -> {message, resolve, reject, resend}
    this.waiting = []; // requests made while not connected, sent after hello
    this.attempt = 0;
    this.timer = null;
    this.stopped = false;
    this.status = "connecting";
    this.tokens = BURST;
    this.refilledAt = performance.now();
    this.sendQueue = [];
    this.sendTimer = null;
    window.addEventListener("online", () => this.retryNow());
  }

  /** The server's clock now (epoch ms), from the offset measured at the last welcome. */
  serverNow() {
    return Date.now() + this.offsetMs;
  }

  open() {
    this.stopped = false;
    this.setStatus(this.attempt === 0 ? "connecting" : "reconnecting");
    const socket = new WebSocket(this.url, [SUBPROTOCOL]);
    this.socket = socket;
    socket.addEventListener("open", () => this.hello(socket));
    socket.addEventListener("message", (event) => this.receive(socket, event.data));
    socket.addEventListener("close", (event) => this.closed(socket, event.code));
  }

  /** Close for good (no reconnect). */
  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.socket?.close(1000, "bye");
  }

  /** Reconnect at once if a pause is under way (the network came back, a button). */
  retryNow() {
    if (this.stopped || this.ready || !this.timer) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.open();
  }

  request(type, fields = {}, { resend = false } = {}) {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      const message = { type, id, ...withoutEmpty(fields) };
      const entry = { message, resolve, reject, resend };
      if (this.ready) this.transmit(entry);
      else this.waiting.push(entry);
    });
  }

  // ---------------------------------------------------------------- sending

  transmit(entry) {
    this.pending.set(entry.message.id, entry);
    this.sendQueue.push(JSON.stringify(entry.message));
    this.flush();
  }

  /** Send queued frames, no faster than the client-side rate limit allows. */
  flush() {
    if (this.sendTimer) return;
    const now = performance.now();
    this.tokens = Math.min(BURST, this.tokens + ((now - this.refilledAt) / 1000) * RATE_PER_S);
    this.refilledAt = now;
    while (
      this.sendQueue.length &&
      this.tokens >= 1 &&
      this.socket?.readyState === WebSocket.OPEN
    ) {
      this.tokens -= 1;
      this.socket.send(this.sendQueue.shift());
    }
    if (this.sendQueue.length && this.socket?.readyState === WebSocket.OPEN) {
      const wait = Math.ceil(((1 - this.tokens) / RATE_PER_S) * 1000);
      this.sendTimer = setTimeout(() => {
        this.sendTimer = null;
        this.flush();
      }, wait);
    }
  }

  hello(socket) {
    const fields = { protocol: PROTOCOL_VERSION, name: this.name };
    if (this.device) fields.device = this.device;
    if (this.token) {
      fields.token = this.token;
      if (this.lastEvent !== null) fields.last_event = this.lastEvent;
    }
    // hello goes first, ahead of anything queued
    socket.send(JSON.stringify({ type: "hello", id: 0, ...fields }));
  }

  // ---------------------------------------------------------------- receiving

  receive(socket, data) {
    if (socket !== this.socket) return;
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (message.type === "welcome") this.welcomed(message);
    else if (message.type === "event") this.event(message);
    else if (message.type === "watch") this.emit("watch", message);
    else if (message.id === 0 && message.of === "hello") this.helloRefused(message);
    else this.answer(message);
  }

  welcomed(welcome) {
    const sameSession = welcome.resumed && this.lastEvent !== null;
    this.token = welcome.token;
    this.player = welcome.player;
    this.name = welcome.name;
    this.account = welcome.account ?? null;
    this.offsetMs = welcome.server_time_ms - Date.now();
    if (!sameSession) this.lastEvent = welcome.last_event;
    this.ready = true;
    this.attempt = 0;
    // After a resume: first resend what may not have been answered (so the answers come
    // in the order asked), then what waited for the connection; then tell the page.
    const again = [...this.pending.values()];
    this.pending.clear();
    for (const entry of again) {
      if (entry.resend) this.transmit(entry);
      else entry.reject(new ConnectionLost());
    }
    const waiting = this.waiting;
    this.waiting = [];
    for (const entry of waiting) this.transmit(entry);
    this.setStatus("online");
    this.emit("welcome", welcome);
  }

  /** After `register` or `sign_in`: the account's token, player and event numbers. */
  adopt({ token, player, name, account, last_event }) {
    Object.assign(this, { token, player, name, account, lastEvent: last_event });
  }

  helloRefused(error) {
    if (this.token && error.code !== "unsupported_protocol") {
      // A token the server cannot use: start afresh as a new player.
      this.token = null;
      this.lastEvent = null;
      this.socket.close(1000, "starting afresh");
      return;
    }
    this.stopped = true;
    this.setStatus("failed", error.message);
    this.socket.close(1000, "refused");
  }

  event(message) {
    if (this.lastEvent !== null && message.n <= this.lastEvent) return; // seen already
    this.lastEvent = message.n;
    this.emit("event", message);
  }

  answer(message) {
    const entry = this.pending.get(message.id);
    if (!entry) return;
    this.pending.delete(message.id);
    if (message.type === "error") {
      entry.reject(new ServerError(message.code, message.message, message.of));
    } else {
      entry.resolve(message);
    }
  }

  closed(socket, code) {
    if (socket !== this.socket) return;
    this.ready = false;
    clearTimeout(this.sendTimer);
    this.sendTimer = null;
    this.sendQueue = [];
    for (const [id, entry] of this.pending) {
      if (!entry.resend) {
        this.pending.delete(id);
        entry.reject(new ConnectionLost());
      }
    }
    if (this.stopped) return;
    if (code === CLOSE_REPLACED || code === CLOSE_SIGNED_OUT) {
      this.stopped = true;
      this.setStatus(code === CLOSE_REPLACED ? "replaced" : "signed out");
      return;
    }
    const pause = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    this.setStatus("reconnecting");
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.open();
      },
      pause * (0.75 + Math.random() * 0.5),
    );
  }

  setStatus(status, detail = "") {
    this.status = status;
    this.emit("status", { status, detail });
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }
}

function withoutEmpty(fields) {
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined && value !== null),
  );
}
