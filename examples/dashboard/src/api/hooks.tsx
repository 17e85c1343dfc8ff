import { createContext, useContext, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { ReactNode } from 'react';
import { LiveFeed } from './live';
import type { LiveSnapshot } from './live';

const LiveContext = createContext<LiveFeed | null>(null);

/** Starts one live feed on /api/v1/events for the whole app and stops it on unmount. */
export function LiveProvider({ feed, children }: { feed: LiveFeed; children: ReactNode }) {
  useEffect(() => {
    feed.start();
    return () => feed.stop();
  }, [feed]);
  return <LiveContext.Provider value={feed}>{children}</LiveContext.Provider>;
}

const kIdle: LiveSnapshot = { state: 'connecting', revision: 0, recent: [], lastEventId: '', generation: -1 };

/** The live feed's state (connection, revision, recent changes). */
export function useLive(): LiveSnapshot {
  const feed = useContext(LiveContext);
  return useSyncExternalStore(
    feed ? feed.subscribe : () => () => {},
    feed ? feed.getSnapshot : () => kIdle,
  );
}

/** Pause before a failed load is tried again. */
const kRetryMs = 5000;

export interface Resource<T> {
  /** Last good answer; kept while a refetch runs or after a failed one, so views do not flicker. */
  data: T | undefined;
  /** The key `data` was loaded for (differs from the current key until the new answer arrives). */
  dataKey: string | undefined;
  error: string | undefined;
  loading: boolean;
}

/** The store generation an API answer was computed from (its `snapshot`), if it says. */
function generationOf(data: unknown): number | undefined {
  const g = (data as { snapshot?: { generation?: unknown } } | undefined)?.snapshot?.generation;
  return typeof g === 'number' ? g : undefined;
}

/**
 * Loads data with `load` and loads it again whenever `key` changes, the live feed reports a
 * change, or the feed knows a newer store generation than the answer's `snapshot.generation`
 * (`generation` picks it out of answers that nest it). An older request still in flight is
 * aborted, so answers never arrive out of order.
 */
export function useResource<T>(
  key: string,
  load: (signal: AbortSignal) => Promise<T>,
  generation: (data: T) => number | undefined = generationOf,
): Resource<T> {
  const live = useLive();
  const [stale, setStale] = useState(0);
  const [state, setState] = useState<Resource<T>>({ data: undefined, dataKey: undefined, error: undefined, loading: true });
  const loadRef = useRef(load);
  loadRef.current = load;
  const lastKey = useRef(key);

  useEffect(() => {
    const ctrl = new AbortController();
    const keyChanged = lastKey.current !== key;
    lastKey.current = key;
    setState((s) => (keyChanged ? { data: undefined, dataKey: undefined, error: undefined, loading: true } : { ...s, loading: true }));
    loadRef.current(ctrl.signal).then(
      (data) => {
        if (!ctrl.signal.aborted) setState({ data, dataKey: key, error: undefined, loading: false });
      },
      (err: unknown) => {
        if (ctrl.signal.aborted) return;
        const message = err instanceof Error ? err.message : String(err);
        setState((s) => ({ ...s, error: message, loading: false }));
      },
    );
    return () => ctrl.abort();
  }, [key, live.revision, stale]);

  // Refetch once per announced generation that is newer than the data (never in a loop, even if
  // a server answered with an older generation than it announced).
  // A failed load (server restarting, not ready yet, rate limited) is retried after a pause even
  // if no event arrives; a success or a new key cancels the retry.
  useEffect(() => {
    if (!state.error || state.loading) return;
    const timer = setTimeout(() => setStale((n) => n + 1), kRetryMs);
    return () => clearTimeout(timer);
  }, [state.error, state.loading]);

  const have = state.data === undefined ? undefined : generation(state.data);
  const behind = !state.loading && have !== undefined && live.generation > have;
  const refetchedFor = useRef(-1);
  useEffect(() => {
    if (behind && refetchedFor.current !== live.generation) {
      refetchedFor.current = live.generation;
      setStale((n) => n + 1);
    }
  }, [behind, live.generation]);

  return state;
}
