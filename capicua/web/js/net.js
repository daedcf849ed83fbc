// The websocket to /ws: hello on every (re)connect, reconnect with
// exponential backoff + jitter, keep-alive pings. Frames are JSON objects.

export class Connection {
  /**
   * @param {object} o
   * @param {() => object} o.hello   builds the hello frame (called on each connect)
   * @param {(frame: object) => void} o.onFrame
   * @param {(status: string) => void} o.onStatus  'connecting'|'open'|'reconnecting'|'closed'
   */
  constructor({ hello, onFrame, onStatus, url = null }) {
    this.hello = hello;
    this.onFrame = onFrame;
    this.onStatus = onStatus || (() => {});
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    this.url = url || `${proto}//${location.host}/ws`;
    this.ws = null;
    this.attempt = 0;
    this.stopped = false;
    this.timer = null;
    this.pingTimer = null;
  }

  connect() {
    if (this.stopped) return;
    this.onStatus(this.attempt === 0 ? 'connecting' : 'reconnecting');
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch (_) {
      this.schedule();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      if (ws !== this.ws) return;
      this.attempt = 0;
      this.onStatus('open');
      this.sendRaw(this.hello());
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.sendRaw({ type: 'ping' }), 25000);
    };
    ws.onmessage = (ev) => {
      if (ws !== this.ws) return;
      let frame;
      try { frame = JSON.parse(ev.data); } catch (_) { return; }
      if (frame && typeof frame === 'object') this.onFrame(frame);
    };
    ws.onerror = () => { /* onclose follows */ };
    ws.onclose = () => {
      if (ws !== this.ws) return;
      clearInterval(this.pingTimer);
      this.ws = null;
      if (this.stopped) { this.onStatus('closed'); return; }
      this.schedule();
    };
  }

  schedule() {
    if (this.stopped) return;
    const base = Math.min(10000, 500 * 2 ** this.attempt);
    const delay = base * (0.75 + Math.random() * 0.5);
    this.attempt += 1;
    this.onStatus('reconnecting');
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  get open() { return !!this.ws && this.ws.readyState === 1; }

  sendRaw(obj) {
    if (!this.open) return false;
    try { this.ws.send(JSON.stringify(obj)); return true; } catch (_) { return false; }
  }

  /** Say hello again at once on a new socket (the hello changed: this browser just got its token). */
  restart() {
    const old = this.ws;
    this.ws = null; // the old socket's frames and close are ignored from now on
    clearInterval(this.pingTimer);
    clearTimeout(this.timer);
    this.attempt = 0;
    if (old) { try { old.close(); } catch (_) { /* ignore */ } }
    this.connect();
  }

  /** Send an intent; returns false when offline. */
  send(obj) { return this.sendRaw(obj); }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.pingTimer);
    if (this.ws) { try { this.ws.close(); } catch (_) { /* ignore */ } }
  }
}
