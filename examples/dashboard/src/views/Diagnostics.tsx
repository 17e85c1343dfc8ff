import { useState } from 'react';
import { apiUrl, getJson } from '../api/client';
import { useResource } from '../api/hooks';
import type { Diagnostics, RequestFunnel } from '../api/types';
import { Badge, ErrorNote, Loading, SpacerRow } from '../components/common';
import { useRowWindow } from '../components/useWindow';
import { routeHref } from '../router';

/** Pending claims whose explanation is shown at first, and how many more each click shows. */
const kPendingStep = 50;
/** Height of an anomaly row once the table is windowed. */
const kAnomalyRow = 41;
const kAnomalyTableHeight = 640;

/** The sentence without a leading "request <name>: ", which the heading already says. */
function sentenceOf(funnel: RequestFunnel): string {
  const prefix = `request ${funnel.request}: `;
  return funnel.sentence.startsWith(prefix) ? funnel.sentence.slice(prefix.length) : funnel.sentence;
}

/**
 * How many devices survive each filter of a request, as a row of steps: the step where the count
 * drops to zero (or below what is needed) is the answer and is marked; every step's detail is one
 * click away.
 */
export function FunnelTable({ funnel }: { funnel: RequestFunnel }) {
  const culprit = funnel.firstEmpty || funnel.firstShort;
  const culpritStep = funnel.steps.find((s) => s.step === culprit);
  return (
    <div className="funnel">
      <p style={{ margin: '0 0 6px' }}>
        <code>{funnel.request}</code>{' '}
        <span className="muted">
          ({funnel.allMode ? 'all' : funnel.needed} × <code>{funnel.deviceClass}</code>)
        </span>
        : {sentenceOf(funnel)}
      </p>
      {funnel.firstError && <p className="error" style={{ padding: 0, margin: '0 0 4px' }}>{funnel.firstError}</p>}
      {funnel.steps.length > 0 && (
        <>
          <ol className="funnel-steps" aria-label={`Devices left after each filter of request ${funnel.request}`}>
            {funnel.steps.map((s) => {
              const bad = s.step === culprit;
              return (
                <li key={s.step} className={bad ? 'bad' : undefined} title={s.detail}>
                  <span className="funnel-step">{s.step}</span>
                  <span className="funnel-count">{s.remaining}</span>
                  {bad && <span className="sr-only"> (here it fails: {s.detail})</span>}
                </li>
              );
            })}
          </ol>
          {culpritStep && (
            <p className="funnel-why">
              Fails at <strong>{culpritStep.step}</strong>: {culpritStep.detail}
              {culprit === funnel.firstShort && !funnel.allMode ? ` (${funnel.needed} needed)` : ''}
            </p>
          )}
          <details className="funnel-details">
            <summary>Every step</summary>
            <table aria-label={`Filter steps of request ${funnel.request}`}>
              <thead>
                <tr>
                  <th scope="col">Step</th>
                  <th scope="col" className="num">Devices left</th>
                  <th scope="col">Detail</th>
                </tr>
              </thead>
              <tbody>
                {funnel.steps.map((s) => (
                  <tr key={s.step}>
                    <td>{s.step}</td>
                    <td className="num">{s.remaining}</td>
                    <td className="muted">{s.detail}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
        </>
      )}
    </div>
  );
}

/**
 * A pending claim's outcome. A claim no pod uses is not failing: kube-scheduler allocates claims only
 * for the pods it schedules, so it waits for one (neutral tone, not a warning).
 */
export function PendingOutcomeBadge({ outcome }: { outcome: string }) {
  if (outcome === 'waiting-for-consumer') {
    return (
      <Badge tone="info" title="No pod uses this claim; kube-scheduler allocates it when it schedules a pod that does">
        {outcome}
      </Badge>
    );
  }
  return <Badge tone={outcome === 'error' ? 'bad' : 'warn'}>{outcome}</Badge>;
}

function objectLink(id: string) {
  // Graph node ids look like "Kind/..."; the graph view can centre on them.
  return <a href={routeHref('graph', { focus: id })}>{id}</a>;
}

export function DiagnosticsView() {
  const { data, error } = useResource('diagnostics', (signal) => getJson<Diagnostics>(apiUrl('diagnostics'), signal));
  const [pendingShown, setPendingShown] = useState(kPendingStep);
  const win = useRowWindow(data?.anomalies.length ?? 0, kAnomalyRow, kAnomalyTableHeight);
  if (!data) return error ? <ErrorNote error={error} /> : <Loading what="diagnostics" />;
  const errors = data.anomalies.filter((a) => a.severity === 'error').length;
  return (
    <>
      <div className="view-head">
        <h1 style={{ fontSize: 22 }}>Diagnostics</h1>
        <p>
          {data.pending.length} pending claim{data.pending.length === 1 ? '' : 's'} · {data.anomalies.length} anomal{data.anomalies.length === 1 ? 'y' : 'ies'}
          {errors > 0 ? ` (${errors} errors)` : ''}
        </p>
      </div>
      <ErrorNote error={error} />
      <div className="stack">
        <section className="panel" aria-labelledby="pending-h">
          <div className="panel-head">
            <h2 id="pending-h">Why pending</h2>
          </div>
          {data.pending.length === 0 ? (
            <p className="empty">Every claim is allocated.</p>
          ) : (
            <div data-testid="pending-list">
              {data.pending.slice(0, pendingShown).map((p) => (
                <article key={`${p.namespace}/${p.name}`} className="panel-body" style={{ borderBottom: '1px solid var(--border)' }}>
                  <h3>
                    <a href={routeHref('claims', { claim: `${p.namespace}/${p.name}` })}>
                      {p.namespace}/{p.name}
                    </a>{' '}
                    <PendingOutcomeBadge outcome={p.outcome} />
                    {p.node && <span className="muted" style={{ fontWeight: 400 }}> · for node {p.node}</span>}
                  </h3>
                  <p style={{ margin: '4px 0' }}>{p.summary || p.outcomeDetail}</p>
                  {p.error && <p className="error" style={{ padding: 0 }}>{p.error}</p>}
                  {p.requests.map((r) => (
                    <FunnelTable key={r.request} funnel={r} />
                  ))}
                </article>
              ))}
              {data.pending.length > pendingShown && (
                <p className="panel-body">
                  <button type="button" onClick={() => setPendingShown((n) => n + kPendingStep)}>
                    Show {Math.min(kPendingStep, data.pending.length - pendingShown)} more of {(data.pending.length - pendingShown).toLocaleString()} not shown
                  </button>
                </p>
              )}
            </div>
          )}
        </section>
        <section className="panel" aria-labelledby="anomalies-h">
          <div className="panel-head">
            <h2 id="anomalies-h">Lifecycle anomalies</h2>
          </div>
          {data.anomalies.length === 0 ? (
            <p className="empty">No anomalies found.</p>
          ) : (
            <div className={win.windowed ? 'table-window' : undefined} onScroll={win.onScroll}>
            <table data-testid="anomalies-table" className={win.windowed ? 'one-line' : undefined}>
              <thead>
                <tr>
                  <th scope="col">Severity</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Object</th>
                  <th scope="col">Message</th>
                </tr>
              </thead>
              <tbody>
                <SpacerRow height={win.padTop} />
                {data.anomalies.slice(win.first, win.last).map((a, j) => (
                  <tr key={`${a.kind}/${a.object}/${win.first + j}`} style={win.windowed ? { height: kAnomalyRow } : undefined}>
                    <td>
                      <Badge tone={a.severity === 'error' ? 'bad' : 'warn'}>{a.severity}</Badge>
                    </td>
                    <td>{a.kind}</td>
                    <td className="mono">{objectLink(a.object)}</td>
                    <td title={win.windowed ? a.message : undefined}>{a.message}</td>
                  </tr>
                ))}
                <SpacerRow height={win.padBottom} />
              </tbody>
            </table>
            </div>
          )}
        </section>
      </div>
    </>
  );
}
