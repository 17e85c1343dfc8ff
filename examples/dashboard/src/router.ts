import { useEffect, useState } from 'react';

export type ViewName = 'overview' | 'pools' | 'availability' | 'packages' | 'claims' | 'graph' | 'diagnostics' | 'whatif';
export const kViews: { name: ViewName; title: string }[] = [
  { name: 'overview', title: 'Overview' },
  { name: 'pools', title: 'Pools & devices' },
  { name: 'availability', title: 'Availability' },
  { name: 'packages', title: 'Packages' },
  { name: 'claims', title: 'Claims' },
  { name: 'graph', title: 'Graph' },
  { name: 'diagnostics', title: 'Diagnostics' },
  { name: 'whatif', title: 'What-if' },
];

export interface Route {
  view: ViewName;
  params: URLSearchParams;
}

/** Parses "#/pools?driver=x" into a route; anything unknown is the overview. */
export function parseHash(hash: string): Route {
  const h = hash.replace(/^#\/?/, '');
  const [path = '', query = ''] = h.split('?', 2);
  const view = kViews.some((v) => v.name === path) ? (path as ViewName) : 'overview';
  return { view, params: new URLSearchParams(query) };
}

export function routeHref(view: ViewName, params?: Record<string, string | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params ?? {})) if (v) p.set(k, v);
  const qs = p.toString();
  return `#/${view}${qs ? `?${qs}` : ''}`;
}

/**
 * Hash routing: the server needs no route table and a bookmark opens the same view. Routes live
 * in the hash so the page is never reloaded when the view or a filter changes.
 */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(window.location.hash));
  useEffect(() => {
    const on = () => setRoute(parseHash(window.location.hash));
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return route;
}

/** Replaces the current view's query (filters) without adding a history entry per keystroke. */
export function setRouteParams(view: ViewName, params: Record<string, string | undefined>): void {
  const href = routeHref(view, params);
  window.history.replaceState(null, '', href);
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}
