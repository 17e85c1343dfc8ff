import { useMemo, useState } from 'react';
import type { ReactNode } from 'react';
import { apiUrl, getAllDevices, getJson, kDevicePage } from '../api/client';
import { useDevicePages } from '../api/devicePages';
import { useResource } from '../api/hooks';
import type { Device, Pool, PoolList } from '../api/types';
import { Badge, ErrorNote, Loading, attributeText, capacityText } from '../components/common';
import { quantityRatio } from '../components/quantity';
import { UtilBar } from '../components/UtilBar';
import { VirtualList } from '../components/VirtualList';
import { groupPools, poolGroupKey, poolGroupShape } from '../components/groups';
import type { PoolGroup } from '../components/groups';
import { kWindowAbove, useRowWindow } from '../components/useWindow';
import { routeHref, setRouteParams } from '../router';

type DeviceFilter = 'all' | 'free' | 'allocated' | 'tainted';
const kRow = 36;
/** Height of a pool entry when the pool list is windowed, and of the list's scroll box. */
const kPoolRow = 74;
const kPoolListHeight = 592;

function poolKey(p: { driver: string; pool: string }): string {
  return `${p.driver}/${p.pool}`;
}

/** Text a device search matches: name, pool, node, attribute values, holders, taint keys. */
function deviceHaystack(d: Device): string {
  const parts = [d.name, d.pool, d.driver, d.node, d.resourceSlice];
  for (const [k, v] of Object.entries(d.attributes)) parts.push(`${k}=${attributeText(v)}`);
  for (const h of d.heldBy) parts.push(`${h.namespace}/${h.name}`);
  for (const t of d.taints) parts.push(t.key);
  return parts.join(' ').toLowerCase();
}

function keyAttributes(d: Device): string {
  const pick = ['model', 'type', 'productName', 'index'];
  const out: string[] = [];
  for (const name of pick) {
    const hit = Object.entries(d.attributes).find(([k]) => k === name || k.endsWith(`/${name}`));
    if (hit) out.push(attributeText(hit[1]));
  }
  if (out.length === 0) {
    const first = Object.entries(d.attributes)[0];
    if (first) out.push(`${first[0]}=${attributeText(first[1])}`);
  }
  return out.join(' · ');
}

function HolderText({ d }: { d: Device }) {
  if (d.heldBy.length === 0) return <span className="muted">free</span>;
  return (
    <span>
      {d.heldBy.map((h, i) => (
        <span key={`${h.namespace}/${h.name}/${h.request}/${h.shareID}`}>
          {i > 0 ? ', ' : ''}
          <a href={routeHref('claims', { claim: `${h.namespace}/${h.name}` })} onClick={(e) => e.stopPropagation()}>
            {h.namespace}/{h.name}
          </a>
          {h.adminAccess ? ' (admin)' : ''}
        </span>
      ))}
    </span>
  );
}

/** Pools aggregated by driver and shape; a group narrows the pool list to its pools. */
function PoolGroups({ groups, selected, onSelect }: { groups: PoolGroup[]; selected: string; onSelect: (key: string | undefined) => void }) {
  return (
    <ul className="pool-groups" data-testid="pool-groups" aria-label="Pool groups">
      {groups.map((g) => (
        <li key={g.key}>
          <button type="button" aria-pressed={g.key === selected} onClick={() => onSelect(g.key === selected ? undefined : g.key)}>
            <span className="pool-name">
              {g.pools.toLocaleString()} pool{g.pools === 1 ? '' : 's'}
              {g.nodeLocal ? ` on ${g.nodes.toLocaleString()} node${g.nodes === 1 ? '' : 's'}` : ''}
            </span>
            <div className="pool-meta">
              {g.driver} · {poolGroupShape(g)}
            </div>
            <UtilBar used={g.allocatedDevices} total={g.devices} label={`${g.driver} ${poolGroupShape(g)} utilisation`} />
          </button>
        </li>
      ))}
    </ul>
  );
}

function PoolEntry({ p, selected, onSelect, height }: { p: Pool; selected: boolean; onSelect: () => void; height?: number }) {
  return (
    <li style={height ? { height, overflow: 'hidden' } : undefined}>
      <button type="button" aria-pressed={selected} onClick={onSelect}>
        <span className="pool-name">{p.pool}</span>{' '}
        {p.invalid ? <Badge tone="bad">invalid</Badge> : !p.complete ? <Badge tone="warn">incomplete</Badge> : null}{' '}
        {p.taintedDevices > 0 ? <Badge tone="warn">{p.taintedDevices} tainted</Badge> : null}
        <div className="pool-meta">
          {p.driver}
          {p.node ? ` · ${p.node}` : ' · network-attached'}
        </div>
        <UtilBar used={p.allocatedDevices} total={p.devices} label={`${p.pool} utilisation`} />
      </button>
    </li>
  );
}

/**
 * The pools as a list; past kWindowAbove pools only the entries in view are in the DOM (a
 * 10,000-node cluster has 10,000 pools per driver), between spacers that keep the scrollbar right.
 */
function PoolList({ pools, driver, pool, nav }: { pools: Pool[]; driver: string; pool: string; nav: (patch: Record<string, string | undefined>) => void }) {
  const win = useRowWindow(pools.length, kPoolRow, kPoolListHeight);
  const entries: ReactNode[] = [];
  for (let i = win.first; i < win.last; i++) {
    const p = pools[i]!;
    entries.push(<PoolEntry key={poolKey(p)} p={p} selected={p.pool === pool} onSelect={() => nav({ driver: p.driver, pool: p.pool })} height={win.windowed ? kPoolRow : undefined} />);
  }
  return (
    <ul className="pool-list" data-testid="pool-list" onScroll={win.onScroll} style={win.windowed ? { maxHeight: kPoolListHeight } : undefined}>
      <li>
        <button type="button" aria-pressed={!pool} onClick={() => nav({ pool: undefined })}>
          <span className="pool-name">All pools</span>
          <div className="pool-meta">{driver || 'every driver'}</div>
        </button>
      </li>
      {win.padTop > 0 && <li role="presentation" aria-hidden="true" style={{ height: win.padTop }} />}
      {entries}
      {win.padBottom > 0 && <li role="presentation" aria-hidden="true" style={{ height: win.padBottom }} />}
    </ul>
  );
}

function PoolDetail({ pool }: { pool: Pool }) {
  return (
    <div className="detail" aria-label={`Pool ${pool.pool}`}>
      <div>
        <h3>Pool</h3>
        <dl className="kv">
          <dt>driver</dt>
          <dd>{pool.driver}</dd>
          <dt>node</dt>
          <dd>{pool.node || '(not node-local)'}</dd>
          <dt>generation</dt>
          <dd>{pool.generation}</dd>
          <dt>slices</dt>
          <dd>
            {pool.resourceSlices.length}/{pool.resourceSliceCount}
            {pool.staleSlices > 0 ? ` (+${pool.staleSlices} stale)` : ''}
          </dd>
          <dt>state</dt>
          <dd>
            {pool.invalid ? (
              <Badge tone="bad" title={pool.invalidReason}>invalid: {pool.invalidReason}</Badge>
            ) : pool.complete ? (
              <Badge tone="ok">complete</Badge>
            ) : (
              <Badge tone="warn">incomplete</Badge>
            )}
          </dd>
          <dt>tainted</dt>
          <dd>{pool.taintedDevices}</dd>
        </dl>
      </div>
      <div>
        <h3>Shared counters</h3>
        {pool.sharedCounters.length === 0 ? (
          <p className="muted" style={{ margin: 0 }}>None published.</p>
        ) : (
          <table aria-label="Shared counters">
            <thead>
              <tr>
                <th scope="col">Counter</th>
                <th scope="col">Consumed / published</th>
              </tr>
            </thead>
            <tbody>
              {pool.sharedCounters.flatMap((cs) =>
                Object.entries(cs.counters).map(([name, total]) => {
                  const used = cs.consumed[name];
                  const ratio = quantityRatio(used, total);
                  return (
                    <tr key={`${cs.name}/${name}`}>
                      <td className="mono">
                        {cs.name}/{name}
                      </td>
                      <td>
                        <div className="util">
                          <div className="util-bar" aria-hidden="true">
                            <div className="util-fill" data-level={ratio !== undefined && ratio >= 1 ? 'full' : ratio !== undefined && ratio >= 0.8 ? 'high' : 'normal'} style={{ width: `${Math.round((ratio ?? 0) * 100)}%` }} />
                          </div>
                          <span className="util-text">
                            {used ?? '0'} / {total}
                          </span>
                        </div>
                      </td>
                    </tr>
                  );
                }),
              )}
            </tbody>
          </table>
        )}
      </div>
    </div>
  );
}

function DeviceDetail({ d }: { d: Device }) {
  return (
    <div className="detail" aria-label={`Device ${d.name}`} data-testid="device-detail">
      <div>
        <h3>Device {d.name}</h3>
        <dl className="kv">
          <dt>driver</dt>
          <dd>{d.driver}</dd>
          <dt>pool</dt>
          <dd>{d.pool}</dd>
          <dt>node</dt>
          <dd>{d.node || '—'}</dd>
          <dt>slice</dt>
          <dd>{d.resourceSlice}</dd>
          <dt>held by</dt>
          <dd>
            <HolderText d={d} />
          </dd>
        </dl>
      </div>
      <div className="wide">
        <h3>Attributes</h3>
        <dl className="kv">
          {Object.entries(d.attributes).map(([k, v]) => (
            <div key={k} style={{ display: 'contents' }}>
              <dt>{k}</dt>
              <dd>{attributeText(v)}</dd>
            </div>
          ))}
        </dl>
      </div>
      <div>
        <h3>Capacity</h3>
        {Object.keys(d.capacity).length === 0 ? (
          <p className="muted" style={{ margin: 0 }}>None.</p>
        ) : (
          <dl className="kv">
            {Object.entries(d.capacity).map(([k, v]) => (
              <div key={k} style={{ display: 'contents' }}>
                <dt>{k}</dt>
                <dd>{capacityText(v)}</dd>
              </div>
            ))}
          </dl>
        )}
        {d.consumesCounters.length > 0 && (
          <>
            <h3 style={{ marginTop: 8 }}>Consumes counters</h3>
            <dl className="kv">
              {d.consumesCounters.flatMap((cc) =>
                Object.entries(cc.counters).map(([k, v]) => (
                  <div key={`${cc.counterSet}/${k}`} style={{ display: 'contents' }}>
                    <dt>
                      {cc.counterSet}/{k}
                    </dt>
                    <dd>{v}</dd>
                  </div>
                )),
              )}
            </dl>
          </>
        )}
      </div>
      <div>
        <h3>Taints</h3>
        {d.taints.length === 0 ? (
          <p className="muted" style={{ margin: 0 }}>None.</p>
        ) : (
          <ul className="reasons">
            {d.taints.map((t) => (
              <li key={`${t.key}/${t.effect}/${t.source}`}>
                <code>
                  {t.key}
                  {t.value ? `=${t.value}` : ''}:{t.effect}
                </code>{' '}
                <span className="muted">from {t.source}</span>
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}

export function Pools({ params }: { params: URLSearchParams }) {
  const driver = params.get('driver') ?? '';
  const pool = params.get('pool') ?? '';
  const q = params.get('q') ?? '';
  const filter = (params.get('show') ?? 'all') as DeviceFilter;
  const group = params.get('group') ?? '';
  const pq = params.get('pq') ?? '';
  const [selectedDevice, setSelectedDevice] = useState<string | undefined>(undefined);
  const nav = (patch: Record<string, string | undefined>) =>
    setRouteParams('pools', { driver, pool, q, show: filter === 'all' ? undefined : filter, group: group || undefined, pq: pq || undefined, ...patch });

  const pools = useResource('pools', (signal) => getJson<PoolList>(apiUrl('pools'), signal));
  const allPools = pools.data?.items ?? [];
  const drivers = useMemo(() => [...new Set(allPools.map((p) => p.driver))].sort(), [allPools]);
  const byDriver = useMemo(() => allPools.filter((p) => !driver || p.driver === driver), [allPools, driver]);
  const groups = useMemo(() => groupPools(byDriver), [byDriver]);
  const many = byDriver.length > kWindowAbove;
  const shownPools = useMemo(() => {
    const needle = pq.trim().toLowerCase();
    return byDriver.filter((p) => (!group || poolGroupKey(p) === group) && (!needle || `${p.pool} ${p.node}`.toLowerCase().includes(needle)));
  }, [byDriver, group, pq]);
  const selectedPool = allPools.find((p) => p.pool === pool && (!driver || p.driver === driver));

  // Every device of the selection is fetched (and searched here) while they are at most one
  // server page; past that (all pools of a large cluster) the list loads the pages in view only,
  // the free/allocated filter goes to the server and the search needs a pool.
  const selectionDevices = selectedPool ? selectedPool.devices : byDriver.reduce((n, p) => n + p.devices, 0);
  const paged = pools.data !== undefined && selectionDevices > kDevicePage;
  const devKey = `devices?driver=${driver}&pool=${pool}`;
  const devices = useResource(
    paged || !pools.data ? 'devices:paged' : devKey,
    (signal) => (paged || !pools.data ? Promise.resolve(undefined) : getAllDevices({ driver: driver || undefined, pool: pool || undefined }, signal)),
    (d) => d?.generation,
  );
  const serverQuery = { driver: driver || undefined, pool: pool || undefined, allocated: filter === 'free' ? 'false' : filter === 'allocated' ? 'true' : undefined };
  const pages = useDevicePages(serverQuery, paged);

  const shownDevices = useMemo(() => {
    const needle = q.trim().toLowerCase();
    if (paged) return pages.items;
    return (devices.data?.items ?? []).filter((d) => {
      if (filter === 'free' && d.allocated) return false;
      if (filter === 'allocated' && !d.allocated) return false;
      if (filter === 'tainted' && d.taints.length === 0) return false;
      return !needle || deviceHaystack(d).includes(needle);
    });
  }, [devices.data, q, filter, paged, pages.items]);
  const device = selectedDevice === undefined ? undefined : shownDevices.find((d) => d?.id === selectedDevice);
  const devicesLoaded = paged ? pages.total !== undefined : devices.data !== undefined;

  const columns = 'minmax(120px,1.2fr) minmax(120px,1.2fr) minmax(90px,0.8fr) minmax(140px,1.4fr) minmax(70px,0.6fr) minmax(140px,1.4fr)';

  return (
    <>
      <div className="view-head">
        <h1 style={{ fontSize: 22 }}>Pools &amp; devices</h1>
        <p>
          {allPools.length} pools · {allPools.reduce((n, p) => n + p.devices, 0).toLocaleString()} devices ·{' '}
          {allPools.reduce((n, p) => n + p.allocatedDevices, 0).toLocaleString()} allocated
        </p>
      </div>
      <ErrorNote error={pools.error ?? devices.error ?? pages.error} />
      <div className="split">
        <section className="panel" aria-labelledby="pool-list-h">
          <div className="panel-head">
            <h2 id="pool-list-h">Pools</h2>
            <span className="spacer" />
            <label>
              <span className="sr-only">Driver</span>
              <select value={driver} onChange={(e) => nav({ driver: e.target.value || undefined, pool: undefined })} aria-label="Filter pools by driver">
                <option value="">All drivers</option>
                {drivers.map((d) => (
                  <option key={d} value={d}>
                    {d}
                  </option>
                ))}
              </select>
            </label>
          </div>
          {!pools.data ? (
            <Loading what="pools" />
          ) : (
            <>
              {many && (
                <>
                  <PoolGroups groups={groups} selected={group} onSelect={(key) => nav({ group: key })} />
                  <div className="panel-body" style={{ padding: '8px 14px' }}>
                    <input
                      type="search"
                      placeholder="Find a pool or node…"
                      aria-label="Find pools"
                      value={pq}
                      onChange={(e) => nav({ pq: e.target.value || undefined })}
                      style={{ width: '100%' }}
                    />
                    <div className="muted" style={{ fontSize: 12.5, marginTop: 4 }} data-testid="pool-count">
                      {shownPools.length.toLocaleString()} of {byDriver.length.toLocaleString()} pools
                    </div>
                  </div>
                </>
              )}
              <PoolList pools={shownPools} driver={driver} pool={pool} nav={nav} />
            </>
          )}
        </section>
        <section className="panel" aria-labelledby="devices-h">
          <div className="panel-head" style={{ flexWrap: 'wrap' }}>
            <h2 id="devices-h">{selectedPool ? `Devices of ${selectedPool.pool}` : 'Devices'}</h2>
            <span className="muted" data-testid="device-count">
              {shownDevices.length.toLocaleString()} shown
            </span>
            <span className="spacer" />
            <input
              type="search"
              placeholder={paged ? 'Choose a pool to search its devices' : 'Search name, attribute, claim…'}
              aria-label="Search devices"
              value={paged ? '' : q}
              disabled={paged}
              onChange={(e) => nav({ q: e.target.value || undefined })}
            />
            <div role="group" aria-label="Show devices">
              {((paged ? ['all', 'free', 'allocated'] : ['all', 'free', 'allocated', 'tainted']) as DeviceFilter[]).map((f) => (
                <button key={f} type="button" aria-pressed={filter === f} onClick={() => nav({ show: f === 'all' ? undefined : f })} style={{ marginLeft: 4 }}>
                  {f}
                </button>
              ))}
            </div>
          </div>
          {selectedPool && <PoolDetail pool={selectedPool} />}
          {!devicesLoaded ? (
            <Loading what="devices" />
          ) : shownDevices.length === 0 ? (
            <p className="empty">No device matches.</p>
          ) : (
            <VirtualList
              items={shownDevices}
              rowHeight={kRow}
              height={Math.min(520, Math.max(kRow, shownDevices.length * kRow))}
              columns={columns}
              label="Devices"
              onRange={paged ? pages.need : undefined}
              rowKey={(d) => d.id}
              selectedKey={selectedDevice}
              onSelect={(d) => setSelectedDevice(d.id)}
              header={
                <>
                  <span>Device</span>
                  <span>Pool</span>
                  <span>Node</span>
                  <span>Attributes</span>
                  <span>Taints</span>
                  <span>Held by</span>
                </>
              }
              renderRow={(d) => (
                <>
                  <span className="mono">{d.name}</span>
                  <span title={d.pool}>{d.pool}</span>
                  <span>{d.node || '—'}</span>
                  <span className="muted" title={keyAttributes(d)}>{keyAttributes(d)}</span>
                  <span>{d.taints.length > 0 ? <Badge tone="warn" title={d.taints.map((t) => `${t.key}:${t.effect}`).join(', ')}>{d.taints.length} taint{d.taints.length > 1 ? 's' : ''}</Badge> : <span className="muted">—</span>}</span>
                  <span>
                    <HolderText d={d} />
                  </span>
                </>
              )}
            />
          )}
          {device && <DeviceDetail d={device} />}
        </section>
      </div>
    </>
  );
}
