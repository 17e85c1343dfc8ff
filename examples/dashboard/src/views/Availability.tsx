import { Fragment, useEffect, useMemo, useState } from 'react';
import { apiUrl, getJson } from '../api/client';
import { useResource } from '../api/hooks';
import type { PoolAvailability, PoolList, PoolStatus } from '../api/types';
import { availabilityTotals, countText, partitionsText, shareableText } from '../components/capacity';
import { Badge, Card, DetailRow, ErrorNote, ExpandButton, Loading, SpacerRow } from '../components/common';
import { SuggestBox } from '../components/SuggestBox';
import { useRowWindow } from '../components/useWindow';
import { routeHref, setRouteParams } from '../router';

/** Height of a pool row once the table is windowed (rows are kept to one line then). */
const kPoolRow = 37;
const kPoolTableHeight = 560;
/** Pool names offered under the pool box. */
const kPoolSuggestions = 30;
/** spec.limit choices (openapi: 0..1000; 0 is upstream's default, 100). */
const kLimits = ['100', '500', '1000'];

function poolKey(p: PoolAvailability): string {
  return `${p.driver}/${p.poolName}`;
}

/** The optional pool: a search box suggesting a few of the driver's pools (10,000 on a large cluster). */
function PoolFilter({ pools, pool, onChange }: { pools: string[]; pool: string; onChange: (pool: string | undefined) => void }) {
  return (
    <label>
      Pool
      <SuggestBox names={pools} value={pool} onChange={onChange} label="Pool" listId="availability-pool-names" placeholder={`all ${pools.length.toLocaleString()} pools`} max={kPoolSuggestions} />
    </label>
  );
}

/** The partition and shareable summaries and the validation error of one pool. */
export function PoolAvailabilityDetail({ p }: { p: PoolAvailability }) {
  const parts = p.partitionSummary ?? [];
  const share = p.shareableSummary;
  return (
    <div className="detail" data-testid="availability-detail" aria-label={`Availability of pool ${p.poolName}`}>
      <div>
        <h3>Pool {p.poolName}</h3>
        <dl className="kv">
          <dt>nodeName</dt>
          <dd>{p.nodeName || '(not one node)'}</dd>
          <dt>generation</dt>
          <dd>{p.generation ?? 0}</dd>
          <dt>resourceSliceCount</dt>
          <dd>{countText(p.resourceSliceCount)}</dd>
          <dt>validationError</dt>
          <dd>{p.validationError ? <span style={{ color: 'var(--bad)' }}>{p.validationError}</span> : 'none'}</dd>
        </dl>
        <p style={{ margin: '6px 0 0' }}>
          <a href={routeHref('pools', { driver: p.driver, pool: p.poolName })}>Devices of this pool →</a>
        </p>
      </div>
      <div>
        <h3>Partitions</h3>
        {parts.length === 0 ? (
          <p className="muted" style={{ margin: 0 }}>No partitionSummary.</p>
        ) : (
          <table aria-label={`Partitions of ${p.poolName}`}>
            <thead>
              <tr>
                <th scope="col">Attribute</th>
                <th scope="col">Type</th>
                <th scope="col" className="num">Total</th>
                <th scope="col" className="num">Allocatable</th>
              </tr>
            </thead>
            <tbody>
              {parts.map((s) => (
                <tr key={`${s.attribute}/${s.type}`}>
                  <td className="mono">{s.attribute}</td>
                  <td className="mono">{s.type}</td>
                  <td className="num">{s.total}</td>
                  <td className="num">{s.allocatable}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      <div>
        <h3>Shareable devices</h3>
        {!share ? (
          <p className="muted" style={{ margin: 0 }}>No shareableSummary.</p>
        ) : (
          <>
            <p style={{ margin: '0 0 4px' }}>
              {share.fullyAvailableDevices ?? 0} fully available, {share.partiallyAvailableDevices ?? 0} partially available
            </p>
            {(share.capacity ?? []).length > 0 && (
              <table aria-label={`Shareable capacity of ${p.poolName}`}>
                <thead>
                  <tr>
                    <th scope="col">Capacity</th>
                    <th scope="col" className="num">Total</th>
                    <th scope="col" className="num">Consumed</th>
                    <th scope="col" className="num">Available</th>
                  </tr>
                </thead>
                <tbody>
                  {(share.capacity ?? []).map((c) => (
                    <tr key={c.name}>
                      <td className="mono">{c.name}</td>
                      <td className="num">{c.total}</td>
                      <td className="num">{c.consumed}</td>
                      <td className="num">{c.available}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </>
        )}
      </div>
    </div>
  );
}

/**
 * The pools of the status as a table; past kWindowAbove pools (a limit of 500 or 1,000) only the
 * rows in view are rendered, one line each, and the selected pool's details move above the table.
 */
function AvailabilityTable({ pools, selected, onSelect }: { pools: PoolAvailability[]; selected: string; onSelect: (key: string | undefined) => void }) {
  const win = useRowWindow(pools.length, kPoolRow, kPoolTableHeight);
  const open = win.windowed ? pools.find((p) => poolKey(p) === selected) : undefined;
  return (
    <>
      {open && <PoolAvailabilityDetail p={open} />}
      <div className={win.windowed ? 'table-window' : undefined} style={win.windowed ? { maxHeight: kPoolTableHeight } : undefined} onScroll={win.onScroll}>
        <table data-testid="availability-table" aria-label="Pool availability" className={win.windowed ? 'one-line' : undefined}>
          <thead>
            <tr>
              <th scope="col">Pool</th>
              <th scope="col">Node</th>
              <th scope="col" className="num">Generation</th>
              <th scope="col" className="num">Slices</th>
              <th scope="col" className="num">Total</th>
              <th scope="col" className="num">Allocated</th>
              <th scope="col" className="num">Available</th>
              <th scope="col" className="num">Unavailable</th>
              <th scope="col">Partitions</th>
              <th scope="col">Shareable</th>
              <th scope="col">Validation</th>
            </tr>
          </thead>
          <tbody>
            <SpacerRow height={win.padTop} />
            {pools.slice(win.first, win.last).map((p) => {
              const key = poolKey(p);
              const expanded = key === selected;
              return (
                <Fragment key={key}>
                  <tr aria-selected={expanded} data-pool={p.poolName} style={win.windowed ? { height: kPoolRow } : undefined}>
                    <td>
                      <ExpandButton expanded={expanded} onToggle={() => onSelect(expanded ? undefined : key)}>
                        {p.poolName}
                      </ExpandButton>
                    </td>
                    <td>{p.nodeName || <span className="muted">—</span>}</td>
                    <td className="num">{p.generation ?? 0}</td>
                    <td className="num">{countText(p.resourceSliceCount)}</td>
                    <td className="num">{countText(p.totalDevices)}</td>
                    <td className="num">{countText(p.allocatedDevices)}</td>
                    <td className="num">{countText(p.availableDevices)}</td>
                    <td className="num">{countText(p.unavailableDevices)}</td>
                    <td>{partitionsText(p) || <span className="muted">—</span>}</td>
                    <td>{shareableText(p) || <span className="muted">—</span>}</td>
                    <td>{p.validationError ? <Badge tone="bad" title={p.validationError}>{p.validationError.split(':')[0]}</Badge> : <span className="muted">—</span>}</td>
                  </tr>
                  {expanded && !win.windowed && (
                    <DetailRow columns={11}>
                      <PoolAvailabilityDetail p={p} />
                    </DetailRow>
                  )}
                </Fragment>
              );
            })}
            <SpacerRow height={win.padBottom} />
          </tbody>
        </table>
      </div>
    </>
  );
}

/**
 * Pool availability as kube-controller-manager writes it into a ResourcePoolStatusRequest
 * (KEP-5677): /api/v1/pool-status for one driver (and optionally one pool).
 */
export function Availability({ params }: { params: URLSearchParams }) {
  const driverParam = params.get('driver') ?? '';
  const pool = params.get('pool') ?? '';
  const limit = params.get('limit') ?? '';
  const partitionAttribute = params.get('partitionAttribute') ?? '';
  const open = params.get('open') ?? '';
  const [attrText, setAttrText] = useState(partitionAttribute);
  useEffect(() => setAttrText(partitionAttribute), [partitionAttribute]);

  const poolList = useResource('pools', (signal) => getJson<PoolList>(apiUrl('pools'), signal));
  const allPools = poolList.data?.items ?? [];
  const drivers = useMemo(() => [...new Set(allPools.map((p) => p.driver))].sort(), [allPools]);
  // Without a chosen driver the first one is shown (the request needs one).
  const driver = driverParam || drivers[0] || '';
  const poolNames = useMemo(() => allPools.filter((p) => p.driver === driver).map((p) => p.pool), [allPools, driver]);
  const nav = (patch: Record<string, string | undefined>) =>
    setRouteParams('availability', { driver: driverParam || undefined, pool: pool || undefined, limit: limit || undefined, partitionAttribute: partitionAttribute || undefined, open: open || undefined, ...patch });

  const query = { driver, pool: pool || undefined, limit: limit || undefined, partitionAttribute: partitionAttribute || undefined };
  const url = apiUrl('pool-status', query);
  const status = useResource(driver ? url : 'pool-status:none', (signal) => (driver ? getJson<PoolStatus>(url, signal) : Promise.resolve(undefined)));
  const pools = status.data?.pools ?? [];
  const totals = availabilityTotals(pools);
  const poolCount = status.data?.poolCount ?? 0;
  const cond = status.data?.conditions?.[0];

  return (
    <>
      <div className="view-head">
        <h1 style={{ fontSize: 22 }}>Availability</h1>
        <p>What is left in each pool of a driver, as kube-controller-manager reports it in a ResourcePoolStatusRequest (KEP-5677)</p>
      </div>
      <ErrorNote error={poolList.error ?? status.error} />
      <div className="toolbar">
        <label>
          Driver
          <select aria-label="Driver" value={driver} onChange={(e) => nav({ driver: e.target.value || undefined, pool: undefined, open: undefined })}>
            {drivers.length === 0 && <option value="">{poolList.data ? 'no driver publishes devices' : 'loading…'}</option>}
            {drivers.map((d) => (
              <option key={d}>{d}</option>
            ))}
          </select>
        </label>
        <PoolFilter pools={poolNames} pool={pool} onChange={(p) => nav({ pool: p, open: undefined })} />
        <label>
          Partition attribute
          <input
            type="text"
            aria-label="Default partition type attribute"
            placeholder="defaultPartitionTypeAttribute"
            value={attrText}
            onChange={(e) => setAttrText(e.target.value)}
            onBlur={() => nav({ partitionAttribute: attrText.trim() || undefined })}
            onKeyDown={(e) => {
              if (e.key === 'Enter') nav({ partitionAttribute: attrText.trim() || undefined });
            }}
          />
        </label>
        <label>
          Limit
          <select aria-label="Limit" value={limit || '100'} onChange={(e) => nav({ limit: e.target.value === '100' ? undefined : e.target.value })}>
            {kLimits.map((l) => (
              <option key={l}>{l}</option>
            ))}
          </select>
        </label>
      </div>
      {!driver ? (
        poolList.data ? <p className="empty">No driver publishes devices.</p> : <Loading what="drivers" />
      ) : !status.data ? (
        <Loading what="pool availability" />
      ) : (
        <>
          <dl className="cards" aria-label="Availability totals" data-testid="availability-totals">
            <Card label="Pools" value={poolCount} sub={pools.length < poolCount ? `${pools.length.toLocaleString()} listed` : undefined} title="poolCount" />
            <Card label="Devices" value={totals.totalDevices} title="sum of totalDevices" />
            <Card label="Allocated" value={totals.allocatedDevices} title="sum of allocatedDevices" />
            <Card label="Available" value={totals.availableDevices} title="sum of availableDevices" />
            <Card label="Unavailable" value={totals.unavailableDevices} title="sum of unavailableDevices (NoSchedule/NoExecute taints)" />
            <Card label="Validation errors" value={totals.withErrors} title="pools with a validationError" />
          </dl>
          <section className="panel" aria-labelledby="availability-h">
            <div className="panel-head" style={{ flexWrap: 'wrap' }}>
              <h2 id="availability-h">Pools of {driver}</h2>
              <span className="muted" data-testid="availability-count">
                {pools.length < poolCount ? `${pools.length.toLocaleString()} of ${poolCount.toLocaleString()} pools (limit)` : `${poolCount.toLocaleString()} pool${poolCount === 1 ? '' : 's'}`}
                {totals.counted < pools.length ? ` · sums over the ${totals.counted.toLocaleString()} pools with counts` : ''}
              </span>
              <span className="spacer" />
              {cond && (
                <span data-testid="availability-condition">
                  <Badge tone={cond.status === 'True' ? 'ok' : 'warn'} title={cond.reason}>
                    {cond.type}
                  </Badge>{' '}
                  <span className="muted">{cond.message}</span>
                </span>
              )}
            </div>
            {pools.length === 0 ? (
              <p className="empty">{pool ? `No pool ${pool} of ${driver}.` : `${driver} has no pools.`}</p>
            ) : (
              <AvailabilityTable pools={pools} selected={open} onSelect={(key) => nav({ open: key })} />
            )}
          </section>
        </>
      )}
    </>
  );
}
