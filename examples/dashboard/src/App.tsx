import { useEffect, useRef } from 'react';
import { useLive } from './api/hooks';
import type { LiveState } from './api/live';
import { kViews, useRoute } from './router';
import { useTheme } from './theme';
import { Overview } from './views/Overview';
import { Pools } from './views/Pools';
import { Availability } from './views/Availability';
import { Packages } from './views/Packages';
import { Claims } from './views/Claims';
import { GraphView } from './views/GraphView';
import { DiagnosticsView } from './views/Diagnostics';
import { Whatif } from './views/Whatif';

const kLiveText: Record<LiveState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  offline: 'Offline (retrying)',
};

function LiveIndicator() {
  const live = useLive();
  return (
    <span className="live" data-state={live.state} role="status" aria-live="polite" title={live.lastEventId ? `last event id ${live.lastEventId}` : undefined}>
      <span className="live-dot" aria-hidden="true" />
      {kLiveText[live.state]}
    </span>
  );
}

export function App() {
  const route = useRoute();
  const [theme, setTheme] = useTheme();
  const mainRef = useRef<HTMLElement>(null);
  const title = kViews.find((v) => v.name === route.view)?.title ?? '';

  useEffect(() => {
    document.title = `${title} · DRAForge`;
  }, [title]);

  return (
    <div className="app">
      <a className="skip-link" href="#main" onClick={(e) => { e.preventDefault(); mainRef.current?.focus(); }}>
        Skip to content
      </a>
      <header className="topbar">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">D</span>
          DRAForge
        </div>
        <nav className="nav" aria-label="Views">
          {kViews.map((v) => (
            <a key={v.name} href={`#/${v.name}`} aria-current={route.view === v.name ? 'page' : undefined}>
              {v.title}
            </a>
          ))}
        </nav>
        <div className="topbar-right">
          <LiveIndicator />
          <button
            type="button"
            onClick={() => setTheme(theme === 'dark' ? 'light' : 'dark')}
            aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`}
            title={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`}
          >
            {theme === 'dark' ? '☀ Light' : '☾ Dark'}
          </button>
        </div>
      </header>
      <main id="main" ref={mainRef} tabIndex={-1} aria-label={title}>
        {route.view === 'overview' && <Overview />}
        {route.view === 'pools' && <Pools params={route.params} />}
        {route.view === 'availability' && <Availability params={route.params} />}
        {route.view === 'packages' && <Packages params={route.params} />}
        {route.view === 'claims' && <Claims params={route.params} />}
        {route.view === 'graph' && <GraphView params={route.params} />}
        {route.view === 'diagnostics' && <DiagnosticsView />}
        {route.view === 'whatif' && <Whatif params={route.params} />}
      </main>
    </div>
  );
}
