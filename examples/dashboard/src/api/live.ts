// The live feed: one EventSource on /api/v1/events shared by every view.
//
// Views do not patch their data from event payloads; an event only says "something changed", and
// each view refetches what it shows. That keeps every view exactly equal to what the REST API
// returns (one source of truth) and makes a missed event harmless: after any reconnect we refetch.
//
// Resume: the browser's EventSource reconnects by itself after a dropped stream and sends
// Last-Event-ID. When the stream is closed for good (readyState CLOSED, e.g. the server restarted
// and answered an error once), we open a new EventSource with the last id in the query string
// (`lastEventId`), because a new EventSource cannot set the header; and we refetch everything.

export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'offline';

/** One change as the dashboard shows it in the activity log. */
export interface LiveEvent {
  /** SSE event id ("" when the server sent none). */
  id: string;
  /** SSE event type ("message" for unnamed events). */
  type: string;
  /** Parsed JSON payload, or the raw string when it is not JSON. */
  data: unknown;
  /** When the browser received it (ms since epoch). */
  receivedAt: number;
}

export interface LiveSnapshot {
  state: LiveState;
  /** Incremented (at most every `debounceMs`) after changes; views refetch when it moves. */
  revision: number;
  /** Newest first, at most `keep` entries. */
  recent: LiveEvent[];
  lastEventId: string;
  /**
   * The store generation the server announced when the stream (re)opened (the quiet `hello`
   * event's data), -1 before any. A view whose data is older refetches: this closes the gap
   * between a view's first fetch and the stream opening without refetching on every connect.
   */
  generation: number;
}

/** Minimal part of the EventSource API the feed uses; tests pass a fake. */
export interface EventSourceLike {
  readonly readyState: number;
  onopen: ((ev: Event) => unknown) | null;
  onerror: ((ev: Event) => unknown) | null;
  addEventListener(type: string, listener: (ev: MessageEvent) => void): void;
  close(): void;
}

export interface LiveFeedOptions {
  url: string;
  /** Named SSE event types to listen to, besides unnamed "message" events. */
  eventTypes: readonly string[];
  /** Event types that announce no change (the `hello` greeting): not logged, no refetch. */
  quietTypes?: readonly string[];
  create?: (url: string) => EventSourceLike;
  debounceMs?: number;
  keep?: number;
  /** Reconnect delays after the stream closed for good, in ms; the last one repeats. */
  backoffMs?: readonly number[];
}

const CLOSED = 2;

export class LiveFeed {
  private readonly opts: Required<Omit<LiveFeedOptions, 'create'>> & {
    create: (url: string) => EventSourceLike;
  };
  private source: EventSourceLike | null = null;
  private snapshot: LiveSnapshot = { state: 'connecting', revision: 0, recent: [], lastEventId: '', generation: -1 };
  private opened = false;
  private readonly listeners = new Set<() => void>();
  private bumpTimer: ReturnType<typeof setTimeout> | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private attempts = 0;
  private stopped = false;

  constructor(options: LiveFeedOptions) {
    this.opts = {
      quietTypes: [],
      debounceMs: 150,
      keep: 50,
      backoffMs: [1000, 2000, 5000, 10000],
      create: (url) => new EventSource(url),
      ...options,
    };
  }

  /** Current state; a new object after every change (usable with useSyncExternalStore). */
  getSnapshot = (): LiveSnapshot => this.snapshot;

  /** Registers a change listener; returns the unsubscribe function. */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  start(): void {
    this.stopped = false;
    this.open();
  }

  stop(): void {
    this.stopped = true;
    this.source?.close();
    this.source = null;
    if (this.bumpTimer) clearTimeout(this.bumpTimer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.bumpTimer = this.retryTimer = null;
  }

  private open(): void {
    const id = this.snapshot.lastEventId;
    const url = id ? `${this.opts.url}${this.opts.url.includes('?') ? '&' : '?'}lastEventId=${encodeURIComponent(id)}` : this.opts.url;
    const src = this.opts.create(url);
    this.source = src;
    src.onopen = () => {
      if (this.source !== src) return;
      this.attempts = 0;
      this.set({ state: 'live' });
      // After a reconnection, what changed while we were away was perhaps not replayed (a new
      // server process, an id older than its ring): refetch once. The first connection needs no
      // refetch; the `hello` generation tells views whether their first answer is older.
      if (this.opened) this.bump();
      this.opened = true;
    };
    src.onerror = () => {
      if (this.source !== src) return;
      if (src.readyState === CLOSED) {
        src.close();
        this.source = null;
        this.set({ state: 'offline' });
        this.scheduleRetry();
      } else {
        // The browser retries on its own and will send Last-Event-ID.
        this.set({ state: 'reconnecting' });
      }
    };
    const onEvent = (ev: MessageEvent) => {
      if (this.source !== src) return;
      this.receive(ev);
    };
    src.addEventListener('message', onEvent);
    for (const t of this.opts.eventTypes) src.addEventListener(t, onEvent);
  }

  private scheduleRetry(): void {
    if (this.stopped) return;
    const delays = this.opts.backoffMs;
    const delay = delays[Math.min(this.attempts, delays.length - 1)] ?? 5000;
    this.attempts++;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.stopped) {
        this.set({ state: 'reconnecting' });
        this.open();
      }
    }, delay);
  }

  private receive(ev: MessageEvent): void {
    const id = typeof ev.lastEventId === 'string' ? ev.lastEventId : '';
    let data: unknown = ev.data;
    if (typeof ev.data === 'string' && ev.data !== '') {
      try {
        data = JSON.parse(ev.data);
      } catch {
        data = ev.data;
      }
    }
    const quiet = this.opts.quietTypes.includes(ev.type);
    const patch: Partial<LiveSnapshot> = { state: 'live' };
    if (id) patch.lastEventId = id;
    const generation = (data as { generation?: unknown } | null)?.generation;
    if (quiet && typeof generation === 'number') patch.generation = generation;
    if (!quiet) {
      const entry: LiveEvent = { id, type: ev.type, data, receivedAt: Date.now() };
      patch.recent = [entry, ...this.snapshot.recent].slice(0, this.opts.keep);
    }
    this.set(patch);
    if (!quiet) this.bump();
  }

  /** Bumps the revision after the debounce window, coalescing bursts of events into one refetch. */
  private bump(): void {
    if (this.bumpTimer) return;
    this.bumpTimer = setTimeout(() => {
      this.bumpTimer = null;
      this.set({ revision: this.snapshot.revision + 1 });
    }, this.opts.debounceMs);
  }

  private set(patch: Partial<LiveSnapshot>): void {
    this.snapshot = { ...this.snapshot, ...patch };
    for (const l of this.listeners) l();
  }
}
