import { Fragment, useMemo } from 'react';
import { apiUrl, getJson } from '../api/client';
import { useResource } from '../api/hooks';
import type { Claim, ClaimList, ClaimRequest, Diagnostics, PendingClaim } from '../api/types';
import { ClaimStateBadge, DetailRow, ErrorNote, ExpandButton, Loading, SpacerRow } from '../components/common';
import { useRowWindow } from '../components/useWindow';
import { routeHref, setRouteParams } from '../router';
import { FunnelTable } from './Diagnostics';

/** Height of a claim row once the table is windowed (rows are kept to one line then). */
const kClaimRow = 41;
const kClaimTableHeight = 640;

function requestText(r: ClaimRequest): string {
  if (r.firstAvailable.length > 0) return `${r.name}: first of ${r.firstAvailable.map((s) => `${s.name} (${s.deviceClassName})`).join(' | ')}`;
  const n = r.allocationMode === 'All' ? 'all' : String(r.count);
  return `${r.name}: ${n} × ${r.deviceClassName}${r.adminAccess ? ' (admin access)' : ''}`;
}

const kMaxVerdicts = 20;

// Explained without a node: where the claim fits and the first reason on each other node, as the
// scheduler's "0/3 nodes are available" says it.
function NodeVerdicts({ why }: { why: PendingClaim }) {
  const nodes = why.nodes ?? [];
  if (!why.nodesSummary) return null;
  const more = nodes.length - kMaxVerdicts + (why.nodesTotal - nodes.length);
  return (
    <div data-testid="node-verdicts">
      <p style={{ margin: '0 0 4px' }}>{why.nodesSummary}</p>
      <ul className="reasons">
        {nodes.slice(0, kMaxVerdicts).map((v) => (
          <li key={v.node}>
            <code>{v.node}</code>: {v.fits ? <span className="badge badge-ok">fits</span> : v.reason}
          </li>
        ))}
        {more > 0 && <li className="muted">{more} more nodes (see /api/v1/diagnostics)</li>}
      </ul>
    </div>
  );
}

function ClaimDetail({ claim, why }: { claim: Claim; why: PendingClaim | undefined }) {
  return (
    <div className="detail" data-testid="claim-detail">
      <div>
        <h3>Requests</h3>
        <ul className="reasons">
          {claim.requests.map((r) => (
            <li key={r.name}>
              <code>{requestText(r)}</code>
              {r.selectors.length > 0 && (
                <ul className="reasons">
                  {r.selectors.map((s) => (
                    <li key={s}>
                      <code>{s}</code>
                    </li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ul>
      </div>
      <div>
        <h3>Allocation</h3>
        {claim.allocation ? (
          <>
            {claim.allocation.node && <p style={{ margin: '0 0 4px' }}>on node {claim.allocation.node}</p>}
            <ul className="reasons">
              {claim.allocation.results.map((r) => (
                <li key={`${r.request}/${r.driver}/${r.pool}/${r.device}/${r.shareID}`}>
                  <code>{r.request}</code> →{' '}
                  <a href={routeHref('pools', { driver: r.driver, pool: r.pool, q: r.device })}>
                    {r.driver}/{r.pool}/{r.device}
                  </a>
                  {r.adminAccess ? ' (admin)' : ''}
                  {!r.deviceKnown && <span className="badge badge-bad" style={{ marginLeft: 6 }}>device not published</span>}
                </li>
              ))}
            </ul>
          </>
        ) : (
          <p className="muted" style={{ margin: 0 }}>Not allocated.</p>
        )}
      </div>
      <div>
        <h3>Reserved for</h3>
        {claim.reservedFor.length === 0 ? (
          <p className="muted" style={{ margin: 0 }}>Nobody.</p>
        ) : (
          <ul className="reasons">
            {claim.reservedFor.map((c) => (
              <li key={c.uid || c.name}>
                {c.resource} {c.name}
              </li>
            ))}
          </ul>
        )}
        <h3 style={{ marginTop: 8 }}>Pods</h3>
        {claim.pods.length === 0 ? <p className="muted" style={{ margin: 0 }}>None reference it.</p> : <p style={{ margin: 0 }}>{claim.pods.join(', ')}</p>}
      </div>
      {claim.state === 'pending' && (
        <div style={{ gridColumn: '1 / -1' }}>
          <h3>Why pending</h3>
          {why ? (
            <>
              <p style={{ margin: '0 0 6px' }} data-testid="why-pending">{why.summary || why.outcomeDetail || why.outcome}</p>
              {why.error && <p className="error" style={{ padding: 0 }}>{why.error}</p>}
              <NodeVerdicts why={why} />
              {why.requests.map((r) => (
                <FunnelTable key={r.request} funnel={r} />
              ))}
            </>
          ) : (
            <p className="muted" style={{ margin: 0 }}>No explanation available.</p>
          )}
        </div>
      )}
    </div>
  );
}

export function Claims({ params }: { params: URLSearchParams }) {
  const namespace = params.get('namespace') ?? '';
  const state = params.get('state') ?? '';
  const q = params.get('q') ?? '';
  const open = params.get('claim') ?? '';
  const nav = (patch: Record<string, string | undefined>) => setRouteParams('claims', { namespace, state, q, claim: open, ...patch });

  const claims = useResource('claims', (signal) => getJson<ClaimList>(apiUrl('claims'), signal));
  const diags = useResource('diagnostics', (signal) => getJson<Diagnostics>(apiUrl('diagnostics'), signal));
  const why = useMemo(() => new Map((diags.data?.pending ?? []).map((p) => [`${p.namespace}/${p.name}`, p])), [diags.data]);

  const all = claims.data?.items ?? [];
  const namespaces = useMemo(() => [...new Set(all.map((c) => c.namespace))].sort(), [all]);
  const needle = q.trim().toLowerCase();
  const shown = all.filter(
    (c) =>
      (!namespace || c.namespace === namespace) &&
      (!state || c.state === state) &&
      (!needle ||
        `${c.namespace}/${c.name} ${c.pods.join(' ')} ${c.requests.map((r) => r.deviceClassName).join(' ')} ${(c.allocation?.results ?? []).map((r) => `${r.pool}/${r.device}`).join(' ')}`
          .toLowerCase()
          .includes(needle)),
  );
  const counts = { pending: 0, allocated: 0, reserved: 0 };
  for (const c of all) counts[c.state]++;
  // Past kWindowAbove matches only the rows in view are rendered, one line each, and the open
  // claim's details move above the table (a row of variable height would break the window).
  const win = useRowWindow(shown.length, kClaimRow, kClaimTableHeight);
  const openClaim = win.windowed && open ? all.find((c) => `${c.namespace}/${c.name}` === open) : undefined;

  return (
    <>
      <div className="view-head">
        <h1 style={{ fontSize: 22 }}>Claims</h1>
        <p>
          {all.length} claims · {counts.reserved} reserved · {counts.allocated} allocated · {counts.pending} pending
        </p>
      </div>
      <ErrorNote error={claims.error} />
      <div className="toolbar">
        <label>
          Namespace
          <select aria-label="Namespace" value={namespace} onChange={(e) => nav({ namespace: e.target.value || undefined })}>
            <option value="">All</option>
            {namespaces.map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        </label>
        <label>
          State
          <select aria-label="State" value={state} onChange={(e) => nav({ state: e.target.value || undefined })}>
            <option value="">All</option>
            <option value="pending">pending</option>
            <option value="allocated">allocated</option>
            <option value="reserved">reserved</option>
          </select>
        </label>
        <input type="search" placeholder="Search claim, pod, class, device…" aria-label="Search claims" value={q} onChange={(e) => nav({ q: e.target.value || undefined })} />
      </div>
      {openClaim && (
        <section className="panel" aria-label={`Claim ${open}`} style={{ marginBottom: 12 }}>
          <div className="panel-head">
            <h2>
              {open} <ClaimStateBadge state={openClaim.state} deleting={openClaim.deleting} />
            </h2>
            <span className="spacer" />
            <button type="button" onClick={() => nav({ claim: undefined })} aria-label="Close claim details">
              ×
            </button>
          </div>
          <ClaimDetail claim={openClaim} why={why.get(open)} />
        </section>
      )}
      <section className="panel">
        {!claims.data ? (
          <Loading what="claims" />
        ) : shown.length === 0 ? (
          <p className="empty">No claim matches.</p>
        ) : (
          <div className={win.windowed ? 'table-window' : undefined} onScroll={win.onScroll} data-testid="claims-scroll">
          <table data-testid="claims-table" className={win.windowed ? 'one-line' : undefined}>
            <thead>
              <tr>
                <th scope="col">Claim</th>
                <th scope="col">State</th>
                <th scope="col">Requests</th>
                <th scope="col">Allocated devices</th>
                <th scope="col">Node</th>
                <th scope="col">Pods</th>
              </tr>
            </thead>
            <tbody>
              <SpacerRow height={win.padTop} />
              {shown.slice(win.first, win.last).map((c) => {
                const key = `${c.namespace}/${c.name}`;
                const expanded = key === open;
                const w = why.get(key);
                return (
                  <Fragment key={key}>
                    <tr aria-selected={expanded} style={win.windowed ? { height: kClaimRow } : undefined}>
                      <td>
                        <ExpandButton expanded={expanded} onToggle={() => nav({ claim: expanded ? undefined : key })}>
                          <span className="muted">{c.namespace}/</span>
                          {c.name}
                        </ExpandButton>
                      </td>
                      <td>
                        <ClaimStateBadge state={c.state} deleting={c.deleting} />
                        {c.state === 'pending' && w && !win.windowed && (
                          <div className="muted" style={{ fontSize: 12.5, maxWidth: 360 }}>
                            {w.summary || w.outcomeDetail}
                          </div>
                        )}
                      </td>
                      <td>
                        {c.requests.map((r) => (
                          <span key={r.name} className="tag">
                            {r.firstAvailable.length > 0 ? `${r.name}: ${r.firstAvailable.length} alternatives` : `${r.allocationMode === 'All' ? 'all' : r.count}× ${r.deviceClassName}`}
                          </span>
                        ))}
                      </td>
                      <td>
                        {(c.allocation?.results ?? []).map((r) => (
                          <span key={`${r.request}/${r.pool}/${r.device}/${r.shareID}`} className="tag" title={`${r.driver}/${r.pool}/${r.device}`}>
                            {r.pool}/{r.device}
                          </span>
                        ))}
                        {!c.allocation && <span className="muted">—</span>}
                      </td>
                      <td>{c.allocation?.node || <span className="muted">—</span>}</td>
                      <td>{c.pods.length > 0 ? c.pods.join(', ') : <span className="muted">—</span>}</td>
                    </tr>
                    {expanded && !win.windowed && (
                      <DetailRow columns={6}>
                        <ClaimDetail claim={c} why={w} />
                      </DetailRow>
                    )}
                  </Fragment>
                );
              })}
              <SpacerRow height={win.padBottom} />
            </tbody>
          </table>
          </div>
        )}
      </section>
    </>
  );
}
