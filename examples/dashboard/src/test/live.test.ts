import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LiveFeed } from '../api/live';
import type { EventSourceLike } from '../api/live';

// A scripted EventSource: the test plays the server's part.
class FakeSource implements EventSourceLike {
  readyState = 0;
  onopen: ((ev: Event) => unknown) | null = null;
  onerror: ((ev: Event) => unknown) | null = null;
  closed = false;
  private listeners = new Map<string, ((ev: MessageEvent) => void)[]>();
  constructor(readonly url: string) {}
  addEventListener(type: string, l: (ev: MessageEvent) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), l]);
  }
  close() {
    this.closed = true;
    this.readyState = 2;
  }
  open() {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }
  emit(type: string, data: string, id = '') {
    const ev = new MessageEvent(type, { data, lastEventId: id });
    for (const l of this.listeners.get(type) ?? []) l(ev);
  }
  fail(closed: boolean) {
    this.readyState = closed ? 2 : 0;
    this.onerror?.(new Event('error'));
  }
}

describe('LiveFeed', () => {
  let sources: FakeSource[];
  let feed: LiveFeed;
  beforeEach(() => {
    vi.useFakeTimers();
    sources = [];
    feed = new LiveFeed({
      url: 'api/v1/events',
      eventTypes: ['hello', 'change', 'reset'],
      quietTypes: ['hello'],
      create: (url) => {
        const s = new FakeSource(url);
        sources.push(s);
        return s;
      },
      debounceMs: 100,
      backoffMs: [1000, 3000],
    });
    feed.start();
  });
  afterEach(() => {
    feed.stop();
    vi.useRealTimers();
  });

  it('is connecting until the stream opens, then live', () => {
    expect(feed.getSnapshot().state).toBe('connecting');
    sources[0]!.open();
    expect(feed.getSnapshot().state).toBe('live');
  });

  it('coalesces a burst of change events into one refetch and logs each', () => {
    sources[0]!.open();
    vi.advanceTimersByTime(200);
    const base = feed.getSnapshot().revision;
    for (let g = 5; g < 10; g++) {
      sources[0]!.emit('change', JSON.stringify({ generation: g, changes: [] }), String(g));
    }
    expect(feed.getSnapshot().revision).toBe(base);
    vi.advanceTimersByTime(150);
    expect(feed.getSnapshot().revision).toBe(base + 1);
    expect(feed.getSnapshot().recent.map((e) => e.id)).toEqual(['9', '8', '7', '6', '5']);
    expect(feed.getSnapshot().lastEventId).toBe('9');
    expect((feed.getSnapshot().recent[0]!.data as { generation: number }).generation).toBe(9);
  });

  it('does not log the hello greeting but remembers its id and generation', () => {
    sources[0]!.open();
    sources[0]!.emit('hello', '{"generation":3,"resourceVersion":"3"}', '3');
    expect(feed.getSnapshot().recent).toEqual([]);
    expect(feed.getSnapshot().lastEventId).toBe('3');
    expect(feed.getSnapshot().generation).toBe(3);
    // Change events refetch through the revision, not through the announced generation.
    sources[0]!.emit('change', '{"generation":4}', '4');
    expect(feed.getSnapshot().generation).toBe(3);
  });

  it('does not refetch on the first connection, only on reconnections', () => {
    sources[0]!.open();
    vi.advanceTimersByTime(500);
    expect(feed.getSnapshot().revision).toBe(0);
  });

  it('refetches on a reset event', () => {
    sources[0]!.open();
    vi.advanceTimersByTime(200);
    const base = feed.getSnapshot().revision;
    sources[0]!.emit('reset', '{"generation":1,"resourceVersion":"1"}', '1');
    vi.advanceTimersByTime(150);
    expect(feed.getSnapshot().revision).toBe(base + 1);
  });

  it('lets the browser retry a dropped stream and refetches when it is back', () => {
    sources[0]!.open();
    vi.advanceTimersByTime(200);
    sources[0]!.fail(false);
    expect(feed.getSnapshot().state).toBe('reconnecting');
    expect(sources).toHaveLength(1);
    const base = feed.getSnapshot().revision;
    sources[0]!.open();
    vi.advanceTimersByTime(150);
    expect(feed.getSnapshot().state).toBe('live');
    expect(feed.getSnapshot().revision).toBe(base + 1);
  });

  it('reopens a closed stream after a backoff, resuming from the last event id', () => {
    sources[0]!.open();
    sources[0]!.emit('change', '{}', '42');
    sources[0]!.fail(true);
    expect(feed.getSnapshot().state).toBe('offline');
    expect(sources[0]!.closed).toBe(true);
    vi.advanceTimersByTime(999);
    expect(sources).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(sources).toHaveLength(2);
    expect(sources[1]!.url).toBe('api/v1/events?lastEventId=42');
    expect(feed.getSnapshot().state).toBe('reconnecting');
    // A second failure waits longer.
    sources[1]!.fail(true);
    vi.advanceTimersByTime(2999);
    expect(sources).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(sources).toHaveLength(3);
  });

  it('ignores events from a stream it already replaced', () => {
    sources[0]!.open();
    sources[0]!.fail(true);
    vi.advanceTimersByTime(1000);
    sources[0]!.emit('change', '{}', '99');
    expect(feed.getSnapshot().lastEventId).toBe('');
  });

  it('stops cleanly: no reconnect after stop', () => {
    sources[0]!.open();
    sources[0]!.fail(true);
    feed.stop();
    vi.advanceTimersByTime(10000);
    expect(sources).toHaveLength(1);
  });
});
