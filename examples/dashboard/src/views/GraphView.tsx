import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { KeyboardEvent, PointerEvent, WheelEvent } from 'react';
import { apiUrl, getJson } from '../api/client';
import { useResource } from '../api/hooks';
import type { ClaimList, Graph, GraphNode, PoolList, Summary } from '../api/types';
import { ErrorNote, Loading } from '../components/common';
import { edgePath, kNodeHeight, kNodeWidth, kTop, layoutGraph, neighbourhood } from '../graph/layout';
import type { PlacedNode } from '../graph/layout';
import { aggregateGraph, kDetailAbove } from '../graph/aggregate';
import { centreOn, fitView, visibleWorld, zoomAt } from '../graph/viewport';
import { kWindowAbove } from '../components/useWindow';
import { SuggestBox } from '../components/SuggestBox';
import type { View } from '../graph/viewport';
import { setRouteParams } from '../router';

// Stroke colours per kind: distinguishable in both themes; the kind is also written in each box.
const kKindColour: Record<string, string> = {
  Pod: '#8e5cd9',
  ResourceClaim: '#d9822b',
  ResourceClaimTemplate: '#b8860b',
  DeviceClass: '#2e9e8f',
  ResourceSlice: '#4a7bd0',
  Device: '#3f9b4a',
  Pool: '#c0508a',
  Node: '#7a8594',
};
const kCullAbove = 600;

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/** Above this many devices the graph starts with allocated devices only (the user can switch). */
const kAllDevicesUpTo = 1000;
/** Width of the strip at the right that the floating zoom buttons cover (12px inset + 34px buttons). */
const kControlsInset = 46;

function nodeLabel(n: GraphNode): string {
  if (n.kind === 'Device' && typeof n.pool === 'string') return `${n.pool}/${n.name}`;
  return n.namespace ? `${n.namespace}/${n.name}` : n.name;
}

/** Members of a group listed when it is selected (the filters reach the others). */
const kMembersListed = 40;
/** Node names offered under the node search box. */
const kNodeSuggestions = 30;

/**
 * The node filter: a drop-down of every node, or past kWindowAbove nodes a search box that
 * suggests matching names and applies one when Enter is pressed or a suggestion is picked.
 */
function NodeFilter({ nodes, node, onChange }: { nodes: string[]; node: string; onChange: (node: string | undefined) => void }) {
  if (nodes.length <= kWindowAbove) {
    return (
      <select aria-label="Node" value={node} onChange={(e) => onChange(e.target.value || undefined)}>
        <option value="">All</option>
        {nodes.map((n) => (
          <option key={n}>{n}</option>
        ))}
      </select>
    );
  }
  return <SuggestBox names={nodes} value={node} onChange={onChange} label="Node" listId="graph-node-names" placeholder={`one of ${nodes.length.toLocaleString()} nodes`} max={kNodeSuggestions} />;
}

/** Devices in use and allocated claims are tinted, so the busy part of a cluster stands out. */
function busy(n: GraphNode): boolean {
  return (n.kind === 'Device' && n.inUse === true) || (n.kind === 'ResourceClaim' && n.allocated === true);
}

/** A word on the object's state next to its kind (the box's first line). */
function qualifier(n: GraphNode): string {
  if (n.missing) return 'missing';
  switch (n.kind) {
    case 'Device':
      return n.inUse === true ? 'in use' : 'free';
    case 'ResourceClaim':
      return n.allocated === true ? (Number(n.reservedFor) > 0 ? 'reserved' : 'allocated') : 'pending';
    case 'Pool':
      return typeof n.driver === 'string' ? n.driver : '';
    case 'Pod':
      return typeof n.phase === 'string' ? n.phase : '';
    default:
      return '';
  }
}

function extraFields(n: GraphNode): [string, string][] {
  return Object.entries(n)
    .filter(([k]) => !['id', 'kind', 'name', 'namespace', 'missing', 'group'].includes(k))
    .map(([k, v]) => [k, String(v)]);
}

/** A selected group's members: the first kMembersListed, each opening the graph around it. */
function GroupMembers({ members, onPick }: { members: GraphNode[]; onPick: (m: GraphNode) => void }) {
  return (
    <div data-testid="group-members">
      <h3 style={{ fontSize: 13, margin: '10px 0 4px' }} className="muted">
        {members.length > kMembersListed ? `First ${kMembersListed} of ${members.length.toLocaleString()} (the filters reach the others)` : `Members (${members.length})`}
      </h3>
      <ul className="reasons" style={{ paddingLeft: 0, listStyle: 'none' }}>
        {members.slice(0, kMembersListed).map((m) => (
          <li key={m.id}>
            <button type="button" onClick={() => onPick(m)} style={{ border: 0, background: 'transparent', padding: 0, color: 'var(--accent)', textAlign: 'left' }}>
              {truncate(nodeLabel(m), 40)}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function GraphView({ params }: { params: URLSearchParams }) {
  const namespace = params.get('namespace') ?? '';
  const node = params.get('node') ?? '';
  const driver = params.get('driver') ?? '';
  const allDevicesParam = params.get('allDevices');
  const focus = params.get('focus') ?? '';
  const detail = params.get('detail') ?? '';
  const nav = (patch: Record<string, string | undefined>) =>
    setRouteParams('graph', { namespace, node, driver, allDevices: allDevicesParam ?? undefined, focus, detail: detail || undefined, ...patch });

  const filters = { namespace: namespace || undefined, node: node || undefined, driver: driver || undefined };
  const graphKey = `graph?${JSON.stringify(filters)}&all=${allDevicesParam ?? ''}`;
  // Without an explicit choice, free devices are shown unless there are thousands of them.
  const resource = useResource(graphKey, async (signal) => {
    const all =
      allDevicesParam !== null
        ? allDevicesParam !== 'false'
        : (await getJson<Summary>(apiUrl('summary'), signal)).counts.devices <= kAllDevicesUpTo;
    const g = await getJson<Graph>(apiUrl('graph', { ...filters, allDevices: all ? 'true' : 'false' }), signal);
    return { g, all };
  }, (d) => d.g.snapshot.generation);
  const graph = { ...resource, data: resource.data?.g };
  const allDevices = resource.data?.all ?? allDevicesParam !== 'false';
  // Filter choices come from the unfiltered lists, so narrowing never hides the way back.
  const claims = useResource('claims', (signal) => getJson<ClaimList>(apiUrl('claims'), signal));
  const pools = useResource('pools', (signal) => getJson<PoolList>(apiUrl('pools'), signal));
  const namespaces = useMemo(() => [...new Set((claims.data?.items ?? []).map((c) => c.namespace))].sort(), [claims.data]);
  const drivers = useMemo(() => [...new Set((pools.data?.items ?? []).map((p) => p.driver))].sort(), [pools.data]);
  const nodes = useMemo(() => {
    const s = new Set((pools.data?.items ?? []).map((p) => p.node).filter(Boolean));
    for (const n of graph.data?.nodes ?? []) if (n.kind === 'Node') s.add(n.name);
    return [...s].sort();
  }, [pools.data, graph.data]);

  // Level of detail: a graph of more than kDetailAbove objects is drawn as groups unless the user
  // asked for every object (detail=all); a filter (namespace, node, driver) narrows it first.
  const rawCount = graph.data?.nodes.length ?? 0;
  const grouped = rawCount > kDetailAbove && detail !== 'all';
  const agg = useMemo(() => (grouped && graph.data ? aggregateGraph(graph.data.nodes, graph.data.edges) : undefined), [grouped, graph.data]);
  const layout = useMemo(
    () => (agg ? layoutGraph(agg.nodes, agg.edges) : layoutGraph(graph.data?.nodes ?? [], graph.data?.edges ?? [])),
    [agg, graph.data],
  );

  const wrapRef = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ w: 800, h: 600 });
  const [view, setView] = useState<View>({ x: 24, y: 24, k: 1 });
  const [selected, setSelected] = useState<string>(focus);
  // The graph key the view was last fitted to: fit once per filter, not on every live refresh.
  const fitted = useRef('');

  useLayoutEffect(() => {
    const el = wrapRef.current;
    if (!el) return;
    const measure = () => setSize({ w: el.clientWidth, h: el.clientHeight });
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  // The zoom buttons float over the right edge (.graph-controls: 12px + 34px wide): a fit leaves
  // that strip free, or the last column (nodes) would sit under them.
  const fit = useCallback(() => setView(fitView(layout.width, layout.height, size.w - kControlsInset, size.h)), [layout.width, layout.height, size.w, size.h]);

  // Fit when the graph of new filters arrives; live refreshes keep the user's pan and zoom.
  useEffect(() => {
    if (!graph.data || graph.dataKey !== graphKey || fitted.current === graphKey || size.w === 0) return;
    fitted.current = graphKey;
    const focusId = focus && agg ? agg.groupOf.get(focus) ?? focus : focus;
    const target = focusId ? layout.nodes.get(focusId) : undefined;
    if (target) {
      setView(centreOn({ x: 0, y: 0, k: 1 }, target.x + kNodeWidth / 2, target.y + kNodeHeight / 2, size.w, size.h));
      setSelected(focusId);
    } else {
      fit();
    }
  }, [graph.data, graph.dataKey, graphKey, layout, size, focus, fit, agg]);

  const drag = useRef<{ px: number; py: number; vx: number; vy: number; moved: boolean } | null>(null);
  const [dragging, setDragging] = useState(false);
  const onPointerDown = (e: PointerEvent<SVGSVGElement>) => {
    if (e.button !== 0) return;
    drag.current = { px: e.clientX, py: e.clientY, vx: view.x, vy: view.y, moved: false };
  };
  const onPointerMove = (e: PointerEvent<SVGSVGElement>) => {
    const d = drag.current;
    if (!d) return;
    const dx = e.clientX - d.px;
    const dy = e.clientY - d.py;
    if (!d.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    if (!d.moved) {
      d.moved = true;
      setDragging(true);
      e.currentTarget.setPointerCapture(e.pointerId);
    }
    setView((v) => ({ ...v, x: d.vx + dx, y: d.vy + dy }));
  };
  const onPointerUp = (e: PointerEvent<SVGSVGElement>) => {
    const d = drag.current;
    drag.current = null;
    setDragging(false);
    if (d?.moved) e.currentTarget.releasePointerCapture(e.pointerId);
    else if (d && e.target === e.currentTarget) setSelected('');
  };
  const onWheel = (e: WheelEvent<SVGSVGElement>) => {
    const rect = e.currentTarget.getBoundingClientRect();
    const factor = Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.0015));
    setView((v) => zoomAt(v, factor, e.clientX - rect.left, e.clientY - rect.top));
  };
  const zoomBy = (f: number) => setView((v) => zoomAt(v, f, size.w / 2, size.h / 2));
  const onKeyDown = (e: KeyboardEvent<SVGSVGElement>) => {
    const step = 60;
    const pans: Record<string, [number, number]> = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
    const pan = pans[e.key];
    if (pan && (e.target === e.currentTarget || e.shiftKey)) {
      e.preventDefault();
      setView((v) => ({ ...v, x: v.x + pan[0], y: v.y + pan[1] }));
    } else if (e.key === '+' || e.key === '=') {
      e.preventDefault();
      zoomBy(1.25);
    } else if (e.key === '-') {
      e.preventDefault();
      zoomBy(0.8);
    } else if (e.key === '0') {
      e.preventDefault();
      fit();
    } else if (e.key === 'Escape') {
      setSelected('');
    }
  };

  const select = (p: PlacedNode, centre: boolean) => {
    setSelected(p.node.id);
    if (centre) setView((v) => centreOn(v, p.x + kNodeWidth / 2, p.y + kNodeHeight / 2, size.w, size.h));
  };

  const hl = useMemo(() => (selected ? neighbourhood(selected, layout.edges) : null), [selected, layout.edges]);
  const sel = selected ? layout.nodes.get(selected) : undefined;

  // Draw only what is on screen once the graph is big (thousands of devices).
  const cull = layout.nodes.size > kCullAbove;
  const vis = visibleWorld(view, size.w, size.h);
  const inView = (p: PlacedNode) => !cull || (p.x + kNodeWidth >= vis.x0 && p.x <= vis.x1 && p.y + kNodeHeight >= vis.y0 && p.y <= vis.y1);
  const drawn: PlacedNode[] = [];
  for (const p of layout.nodes.values()) if (inView(p)) drawn.push(p);
  const edges = layout.edges.filter((e) => {
    const a = layout.nodes.get(e.from)!;
    const b = layout.nodes.get(e.to)!;
    if (!cull) return true;
    const y0 = Math.min(a.y, b.y);
    const y1 = Math.max(a.y, b.y) + kNodeHeight;
    const x0 = Math.min(a.x, b.x);
    const x1 = Math.max(a.x, b.x) + kNodeWidth;
    return x1 >= vis.x0 && x0 <= vis.x1 && y1 >= vis.y0 && y0 <= vis.y1;
  });

  const neighbourList = sel
    ? layout.edges
        .filter((e) => e.from === sel.node.id || e.to === sel.node.id)
        .map((e) => ({ e, other: layout.nodes.get(e.from === sel.node.id ? e.to : e.from)! }))
    : [];

  return (
    <>
      <div className="view-head">
        <h1 style={{ fontSize: 22 }}>Relationship graph</h1>
        <p>
          Pod → claim → class → slice → device → pool → node ·{' '}
          {agg ? (
            <span data-testid="graph-grouped">
              {rawCount.toLocaleString()} objects in {layout.nodes.size.toLocaleString()} groups (pick a group, a namespace, a node or a driver to see its objects){' '}
              <button type="button" onClick={() => nav({ detail: 'all' })}>
                Draw every object
              </button>
            </span>
          ) : (
            <>
              {layout.nodes.size.toLocaleString()} objects, {layout.edges.length.toLocaleString()} links
              {detail === 'all' && rawCount > kDetailAbove && (
                <>
                  {' '}
                  <button type="button" onClick={() => nav({ detail: undefined })}>
                    Group them
                  </button>
                </>
              )}
            </>
          )}
        </p>
      </div>
      <div className="toolbar">
        <label>
          Namespace
          <select aria-label="Namespace" value={namespace} onChange={(e) => nav({ namespace: e.target.value || undefined, focus: undefined })}>
            <option value="">All</option>
            {namespaces.map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        </label>
        <label>
          Node
          <NodeFilter nodes={nodes} node={node} onChange={(n) => nav({ node: n, focus: undefined })} />
        </label>
        <label>
          Driver
          <select aria-label="Driver" value={driver} onChange={(e) => nav({ driver: e.target.value || undefined, focus: undefined })}>
            <option value="">All</option>
            {drivers.map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        </label>
        <label>
          <input type="checkbox" checked={allDevices} onChange={(e) => nav({ allDevices: e.target.checked ? 'true' : 'false', focus: undefined })} />
          Free devices too
        </label>
        <span className="spacer" />
        <span className="muted" style={{ fontSize: 12.5 }}>
          Drag to pan · wheel or +/− to zoom · 0 fits · Tab through objects, Enter selects
        </span>
      </div>
      <ErrorNote error={graph.error} />
      <section className="panel" aria-label="Relationship graph">
        <div className="graph-legend" aria-hidden="true">
            {Object.entries(kKindColour).map(([k, c]) => (
              <span key={k}>
                <i style={{ background: c }} />
                {k}
              </span>
            ))}
          </div>
        <div className="graph-wrap" ref={wrapRef}>
          {!graph.data ? (
            <Loading what="graph" />
          ) : layout.nodes.size === 0 ? (
            <p className="empty">Nothing matches these filters.</p>
          ) : (
            <svg
              role="application"
              aria-roledescription="graph"
              aria-label={`Relationship graph with ${layout.nodes.size} objects. Arrow keys pan, plus and minus zoom, 0 fits.`}
              tabIndex={0}
              className={dragging ? 'dragging' : undefined}
              onPointerDown={onPointerDown}
              onPointerMove={onPointerMove}
              onPointerUp={onPointerUp}
              onPointerCancel={onPointerUp}
              onWheel={onWheel}
              onKeyDown={onKeyDown}
              data-testid="graph-svg"
            >
              <g transform={`translate(${view.x},${view.y}) scale(${view.k})`}>
                {layout.columns.map((c) => (
                  <text key={c.title} x={c.x} y={kTop - 14} className="graph-col-title">
                    {c.title}
                  </text>
                ))}
                {edges.map((e, i) => {
                  const a = layout.nodes.get(e.from)!;
                  const b = layout.nodes.get(e.to)!;
                  const on = hl ? hl.has(e.from) && hl.has(e.to) && (e.from === selected || e.to === selected) : false;
                  return <path key={`${e.from}>${e.to}>${e.kind}>${i}`} d={edgePath(a, b)} className={`graph-edge${on ? ' hl' : hl ? ' dim' : ''}`} strokeDasharray={e.kind === 'allocation' ? undefined : e.kind === 'classSlice' ? '4 4' : undefined} />;
                })}
                {drawn.map((p) => {
                  const n = p.node;
                  const colour = kKindColour[n.kind] ?? '#888';
                  const dim = hl && !hl.has(n.id);
                  return (
                    <g
                      key={n.id}
                      className={`graph-node${dim ? ' dim' : ''}${n.id === selected ? ' sel' : ''}`}
                      transform={`translate(${p.x},${p.y})`}
                      tabIndex={0}
                      role="button"
                      aria-label={`${n.kind} ${nodeLabel(n)}${qualifier(n) ? `, ${qualifier(n)}` : ''}`}
                      aria-pressed={n.id === selected}
                      data-node-id={n.id}
                      onClick={(ev) => {
                        ev.stopPropagation();
                        select(p, false);
                      }}
                      onKeyDown={(ev) => {
                        if (ev.key === 'Enter' || ev.key === ' ') {
                          ev.preventDefault();
                          select(p, true);
                        }
                      }}
                      onFocus={() => {
                        const v = view;
                        const sx = p.x * v.k + v.x;
                        const sy = p.y * v.k + v.y;
                        if (sx < 0 || sy < 0 || sx > size.w - kNodeWidth * v.k || sy > size.h - kNodeHeight * v.k) {
                          setView(centreOn(v, p.x + kNodeWidth / 2, p.y + kNodeHeight / 2, size.w, size.h));
                        }
                      }}
                    >
                      <title>{`${n.kind} ${nodeLabel(n)}`}</title>
                      <rect
                        width={kNodeWidth}
                        height={kNodeHeight}
                        rx={6}
                        fill={busy(n) ? `color-mix(in srgb, ${colour} 22%, var(--panel))` : 'var(--panel)'}
                        stroke={colour}
                        strokeDasharray={n.missing ? '5 3' : undefined}
                      />
                      <rect width={5} height={kNodeHeight} rx={2} fill={colour} />
                      <text x={12} y={14} className="kind">
                        {n.kind}
                        {qualifier(n) ? ` · ${qualifier(n)}` : ''}
                      </text>
                      <text x={12} y={29}>
                        {truncate(nodeLabel(n), 26)}
                      </text>
                    </g>
                  );
                })}
              </g>
            </svg>
          )}
          <div className="graph-controls">
            <button type="button" onClick={() => zoomBy(1.25)} aria-label="Zoom in" title="Zoom in (+)">
              +
            </button>
            <button type="button" onClick={() => zoomBy(0.8)} aria-label="Zoom out" title="Zoom out (−)">
              −
            </button>
            <button type="button" onClick={fit} aria-label="Fit the whole graph" title="Fit (0)">
              ⤢
            </button>
          </div>
          {sel && (
            <aside className="graph-info" aria-label="Selected object" data-testid="graph-info">
              <div style={{ display: 'flex', alignItems: 'start', gap: 8 }}>
                <div style={{ flex: 1 }}>
                  <div className="muted" style={{ fontSize: 12 }}>{sel.node.kind}</div>
                  <strong style={{ wordBreak: 'break-all' }}>{nodeLabel(sel.node)}</strong>
                </div>
                <button type="button" onClick={() => setSelected('')} aria-label="Close details">
                  ×
                </button>
              </div>
              {sel.node.missing && <p className="badge badge-bad">referenced but missing</p>}
              {agg && agg.members.has(sel.node.id) && (
                <GroupMembers
                  members={agg.members.get(sel.node.id)!}
                  onPick={(m) => nav(m.kind === 'Pod' || m.kind === 'ResourceClaim' || m.kind === 'ResourceClaimTemplate' ? { namespace: m.namespace, focus: m.id } : m.kind === 'DeviceClass' ? { detail: 'all', focus: m.id } : { node: m.kind === 'Node' ? m.name : typeof m.node === 'string' && m.node ? m.node : undefined, focus: m.id, detail: typeof m.node === 'string' && m.node || m.kind === 'Node' ? undefined : 'all' })}
                />
              )}
              <dl className="kv" style={{ marginTop: 8 }}>
                {extraFields(sel.node).map(([k, v]) => (
                  <div key={k} style={{ display: 'contents' }}>
                    <dt>{k}</dt>
                    <dd>{v}</dd>
                  </div>
                ))}
              </dl>
              <h3 style={{ fontSize: 13, margin: '10px 0 4px' }} className="muted">
                Linked ({neighbourList.length})
              </h3>
              <ul className="reasons" style={{ paddingLeft: 0, listStyle: 'none' }}>
                {neighbourList.slice(0, 60).map(({ e, other }, i) => (
                  <li key={`${other.node.id}-${i}`}>
                    <button type="button" onClick={() => select(other, true)} style={{ border: 0, background: 'transparent', padding: 0, color: 'var(--accent)', textAlign: 'left' }}>
                      {other.node.kind} {truncate(nodeLabel(other.node), 34)}
                    </button>{' '}
                    <span className="muted" style={{ fontSize: 12 }}>{e.label || e.kind}</span>
                  </li>
                ))}
              </ul>
            </aside>
          )}
        </div>
      </section>
    </>
  );
}
