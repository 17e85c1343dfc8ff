import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { LiveProvider } from './api/hooks';
import { LiveFeed } from './api/live';
import './styles.css';

// Event types of /api/v1/events (openapi.json): `hello` on connect, `change` per store change,
// `reset` when a resume id is too old. Heartbeats are SSE comments, which EventSource never shows.
const feed = new LiveFeed({
  url: 'api/v1/events',
  eventTypes: ['hello', 'change', 'reset'],
  quietTypes: ['hello'],
});

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <LiveProvider feed={feed}>
        <App />
      </LiveProvider>
    </StrictMode>,
  );
}
