import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, render, screen } from '@testing-library/react';
import { LiveProvider, useResource } from '../api/hooks';
import { LiveFeed } from '../api/live';
import type { EventSourceLike } from '../api/live';

class FakeSource implements EventSourceLike {
  readyState = 0;
  onopen: ((ev: Event) => unknown) | null = null;
  onerror: ((ev: Event) => unknown) | null = null;
  private listeners = new Map<string, ((ev: MessageEvent) => void)[]>();
  addEventListener(type: string, l: (ev: MessageEvent) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), l]);
  }
  close() {
    this.readyState = 2;
  }
  open() {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }
  emit(type: string, data: string, id: string) {
    for (const l of this.listeners.get(type) ?? []) l(new MessageEvent(type, { data, lastEventId: id }));
  }
}

// A view whose data carries the store generation, as every API answer does.
function View({ load }: { load: () => Promise<{ snapshot: { generation: number } }> }) {
  const r = useResource('thing', load);
  return <p>{r.data ? `generation ${r.data.snapshot.generation}` : 'loading'}</p>;
}

describe('useResource with the live feed', () => {
  let source: FakeSource;
  let feed: LiveFeed;
  let serverGeneration: number;
  let calls: number;
  const load = () => {
    calls++;
    return Promise.resolve({ snapshot: { generation: serverGeneration } });
  };
  const flush = () => act(async () => {
    await vi.advanceTimersByTimeAsync(200);
  });

  beforeEach(() => {
    vi.useFakeTimers();
    calls = 0;
    serverGeneration = 5;
    feed = new LiveFeed({
      url: 'x',
      eventTypes: ['hello', 'change'],
      quietTypes: ['hello'],
      debounceMs: 100,
      create: () => (source = new FakeSource()),
    });
  });
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
  });

  it('loads once when the stream greets with the generation it already shows', async () => {
    render(<LiveProvider feed={feed}><View load={load} /></LiveProvider>);
    await flush();
    act(() => source.open());
    act(() => source.emit('hello', '{"generation":5}', '5'));
    await flush();
    expect(calls).toBe(1);
    expect(screen.getByText('generation 5')).toBeTruthy();
  });

  it('refetches once when the greeting announces a newer generation than its data', async () => {
    render(<LiveProvider feed={feed}><View load={load} /></LiveProvider>);
    await flush();
    serverGeneration = 7;
    act(() => source.open());
    act(() => source.emit('hello', '{"generation":7}', '7'));
    await flush();
    expect(calls).toBe(2);
    expect(screen.getByText('generation 7')).toBeTruthy();
  });

  it('does not loop when the server keeps answering an older generation than announced', async () => {
    render(<LiveProvider feed={feed}><View load={load} /></LiveProvider>);
    await flush();
    act(() => source.open());
    act(() => source.emit('hello', '{"generation":9}', '9'));
    await flush();
    await flush();
    expect(calls).toBe(2);
  });

  it('refetches once for a burst of change events', async () => {
    render(<LiveProvider feed={feed}><View load={load} /></LiveProvider>);
    await flush();
    act(() => source.open());
    serverGeneration = 8;
    act(() => {
      source.emit('change', '{"generation":6}', '6');
      source.emit('change', '{"generation":7}', '7');
      source.emit('change', '{"generation":8}', '8');
    });
    await flush();
    expect(calls).toBe(2);
    expect(screen.getByText('generation 8')).toBeTruthy();
  });

  it('retries a failed load after a pause without any event, then shows the data', async () => {
    let fail = true;
    const flaky = () => {
      calls++;
      return fail ? Promise.reject(new Error('GET api/v1/summary: store not synced')) : Promise.resolve({ snapshot: { generation: 1 } });
    };
    function Flaky() {
      const r = useResource('flaky', flaky);
      return <p>{r.error ? `error: ${r.error}` : r.data ? 'loaded' : 'loading'}</p>;
    }
    render(<LiveProvider feed={feed}><Flaky /></LiveProvider>);
    await flush();
    expect(screen.getByText('error: GET api/v1/summary: store not synced')).toBeTruthy();
    expect(calls).toBe(1);
    fail = false;
    await act(async () => {
      await vi.advanceTimersByTimeAsync(5000);
    });
    expect(calls).toBe(2);
    expect(screen.getByText('loaded')).toBeTruthy();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(20000);
    });
    expect(calls).toBe(2);
  });
});
