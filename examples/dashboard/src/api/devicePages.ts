import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { apiUrl, getJson } from './client';
import { useLive } from './hooks';
import type { Device, DeviceList } from './types';

/** Devices per request when a list is loaded page by page as it scrolls. */
export const kScrollPage = 500;

export interface DevicePages {
  /** One entry per device matching the query; `undefined` until its page arrives. */
  items: (Device | undefined)[];
  /** Matching devices, from the first page (undefined before it arrives). */
  total: number | undefined;
  error: string | undefined;
  /** Asks for the pages covering rows [first, last) (what a virtual list renders). */
  need: (first: number, last: number) => void;
}

/**
 * The devices matching `query`, fetched from /api/v1/devices a page at a time for the rows in
 * view, for lists too long to fetch whole (80,000 devices of a 10,000-node cluster). A change in
 * the store (live feed) or of the query drops the loaded pages and starts again.
 */
export function useDevicePages(query: Record<string, string | undefined>, enabled: boolean): DevicePages {
  const live = useLive();
  const key = `${JSON.stringify(query)}#${live.revision}`;
  const [state, setState] = useState<{ key: string; total: number | undefined; pages: Map<number, Device[]>; error: string | undefined }>(
    { key, total: undefined, pages: new Map(), error: undefined },
  );
  const requested = useRef({ key: '', pages: new Set<number>(), ctrl: new AbortController() });
  // The rows last asked for: after a store change or a new query their pages load again at once.
  const range = useRef<[number, number]>([0, 1]);
  const queryRef = useRef(query);
  queryRef.current = query;

  const load = useCallback(
    (page: number) => {
      const r = requested.current;
      if (r.pages.has(page)) return;
      r.pages.add(page);
      const forKey = r.key;
      getJson<DeviceList>(apiUrl('devices', { ...queryRef.current, offset: String(page * kScrollPage), limit: String(kScrollPage) }), r.ctrl.signal).then(
        (list) =>
          setState((s) => (s.key !== forKey ? s : { ...s, total: list.total, pages: new Map(s.pages).set(page, list.items), error: undefined })),
        (err: unknown) => {
          if (r.ctrl.signal.aborted) return;
          r.pages.delete(page);
          setState((s) => (s.key !== forKey ? s : { ...s, error: err instanceof Error ? err.message : String(err) }));
        },
      );
    },
    [],
  );

  useEffect(() => {
    if (!enabled) return;
    requested.current.ctrl.abort();
    requested.current = { key, pages: new Set(), ctrl: new AbortController() };
    // Keep what is shown until the new pages replace it (no flicker on a live refresh).
    setState((s) => ({ key, total: s.key.split('#')[0] === key.split('#')[0] ? s.total : undefined, pages: s.key.split('#')[0] === key.split('#')[0] ? s.pages : new Map(), error: undefined }));
    const [first, last] = range.current;
    load(0);
    for (let page = Math.floor(first / kScrollPage); page * kScrollPage < last; page++) load(page);
    return () => requested.current.ctrl.abort();
  }, [key, enabled, load]);

  const need = useCallback(
    (first: number, last: number) => {
      range.current = [first, last];
      for (let page = Math.floor(first / kScrollPage); page * kScrollPage < last; page++) load(page);
    },
    [load],
  );

  const items = useMemo(() => {
    const out: (Device | undefined)[] = new Array(state.total ?? 0).fill(undefined);
    for (const [page, list] of state.pages) list.forEach((d, i) => {
      if (page * kScrollPage + i < out.length) out[page * kScrollPage + i] = d;
    });
    return out;
  }, [state.total, state.pages]);

  return { items, total: state.total, error: state.error, need };
}
