import { apiUrl, getJson } from '../api/client';
import { useLive, useResource } from '../api/hooks';
import type { ChangeEvent, Summary } from '../api/types';
import type { LiveEvent } from '../api/live';
import { Card, ErrorNote, Loading } from '../components/common';
import { UtilBar } from '../components/UtilBar';
import { groupPools, poolGroupShape } from '../components/groups';
import type { PoolGroup } from '../components/groups';
import { routeHref } from '../router';

const kTopPools = 15;

function describeEvent(e: LiveEvent): string {
  if (e.type === 'reset') return 'The server asked for a full refresh (missed too many changes).';
  const data = e.data as Partial<ChangeEvent> | undefined;
  const changes = Array.isArray(data?.changes) ? data.changes : [];
  if (changes.length === 0) return `Store changed (generation ${data?.generation ?? e.id}).`;
  const shown = changes.slice(0, 3).map((c) => `${c.type.toLowerCase()} ${c.kind} ${c.namespace ? `${c.namespace}/` : ''}${c.name}`);
  return shown.join(', ') + (changes.length > 3 ? ` and ${changes.length - 3} more` : '');
}

function RecentChanges() {
  const live = useLive();
  return (
    <section className="panel" aria-labelledby="recent-h">
      <div className="panel-head">
        <h2 id="recent-h">Recent changes</h2>
        <span className="muted">since this page opened</span>
      </div>
      {live.recent.length === 0 ? (
        <p className="empty">No changes yet. Changes appear here as the cluster changes.</p>
      ) : (
        <ul className="events-log" aria-live="polite" data-testid="recent-changes">
          {live.recent.map((e, i) => (
            <li key={`${e.id}-${i}`}>
              <time dateTime={new Date(e.receivedAt).toISOString()}>{new Date(e.receivedAt).toLocaleTimeString()}</time>
              <span>{describeEvent(e)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Pools (and the nodes they sit on) aggregated by driver and shape, each a link to its pools. */
function PoolGroupsPanel({ groups }: { groups: PoolGroup[] }) {
  return (
    <section className="panel" aria-labelledby="groups-h">
      <div className="panel-head">
        <h2 id="groups-h">Pool groups</h2>
        <span className="muted">
          pools of one driver and shape{groups.length > kTopPools ? ` · ${kTopPools} of ${groups.length}` : ''}
        </span>
      </div>
      <table data-testid="overview-groups">
        <thead>
          <tr>
            <th scope="col">Driver</th>
            <th scope="col">Shape</th>
            <th scope="col" className="num">Pools</th>
            <th scope="col" className="num">Nodes</th>
            <th scope="col">Allocated devices</th>
          </tr>
        </thead>
        <tbody>
          {groups.slice(0, kTopPools).map((g) => (
            <tr key={g.key}>
              <td>
                <a href={routeHref('pools', { driver: g.driver, group: g.key })}>{g.driver}</a>
              </td>
              <td>{poolGroupShape(g)}</td>
              <td className="num">{g.pools.toLocaleString()}</td>
              <td className="num">{g.nodes.toLocaleString()}</td>
              <td>
                <UtilBar used={g.allocatedDevices} total={g.devices} label={`${g.driver} ${poolGroupShape(g)} utilisation`} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function Overview() {
  const { data, error } = useResource('summary', (signal) => getJson<Summary>(apiUrl('summary'), signal));
  if (!data) return error ? <ErrorNote error={error} /> : <Loading what="summary" />;
  const c = data.counts;
  const devicePct = c.devices > 0 ? ` ${Math.round((c.allocatedDevices / c.devices) * 100)}%` : '';
  const groups = data.pools.length > kTopPools ? groupPools(data.pools) : [];
  const pools = [...data.pools].sort((a, b) => b.utilisation - a.utilisation || a.driver.localeCompare(b.driver) || a.pool.localeCompare(b.pool));

  return (
    <>
      <div className="view-head">
        <h1 style={{ fontSize: 22 }}>Overview</h1>
        <p>Cluster inventory and utilisation · store generation {data.snapshot.generation}</p>
      </div>
      <ErrorNote error={error} />
      <dl className="cards" aria-label="Inventory">
        <Card label="Nodes" value={c.nodes} />
        <Card label="Resource slices" value={c.resourceSlices} />
        <Card label="Drivers" value={c.drivers} />
        <Card label="Pools" value={c.pools} href={routeHref('pools')} />
        <Card label="Devices" value={c.devices} href={routeHref('pools')} />
        <Card label="Allocated devices" value={c.allocatedDevices} sub={devicePct} />
        <Card label="Claims" value={c.claims} href={routeHref('claims')} />
        <Card label="Allocated claims" value={c.allocatedClaims} sub={`${c.reservedClaims} reserved`} />
        <Card label="Pending claims" value={c.pendingClaims} href={routeHref('claims', { state: 'pending' })} />
        <Card label="Device classes" value={c.deviceClasses} />
        <Card label="Pods" value={c.pods} />
        <Card label="Anomalies" value={c.anomalies} href={routeHref('diagnostics')} />
      </dl>
      <div className="grid-2">
        <div className="stack">
          <section className="panel" aria-labelledby="drivers-h">
            <div className="panel-head">
              <h2 id="drivers-h">Utilisation by driver</h2>
            </div>
            {data.drivers.length === 0 ? (
              <p className="empty">No driver publishes devices.</p>
            ) : (
              <table>
                <thead>
                  <tr>
                    <th scope="col">Driver</th>
                    <th scope="col" className="num">Pools</th>
                    <th scope="col" className="num">Slices</th>
                    <th scope="col">Allocated devices</th>
                  </tr>
                </thead>
                <tbody>
                  {data.drivers.map((d) => (
                    <tr key={d.driver}>
                      <td>
                        <a href={routeHref('pools', { driver: d.driver })}>{d.driver}</a>
                      </td>
                      <td className="num">{d.pools}</td>
                      <td className="num">{d.resourceSlices}</td>
                      <td>
                        <UtilBar used={d.allocatedDevices} total={d.devices} label={`${d.driver} utilisation`} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
          {groups.length > 0 && <PoolGroupsPanel groups={groups} />}
          <RecentChanges />
        </div>
        <section className="panel" aria-labelledby="pools-h">
          <div className="panel-head">
            <h2 id="pools-h">Pools</h2>
            <span className="muted">
              {pools.length > kTopPools ? `${kTopPools} busiest of ${pools.length}` : `${pools.length}`}
            </span>
            <span className="spacer" />
            <a href={routeHref('pools')}>All pools and devices →</a>
          </div>
          {pools.length === 0 ? (
            <p className="empty">No pools.</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Pool</th>
                  <th scope="col">Driver</th>
                  <th scope="col">Node</th>
                  <th scope="col">Allocated devices</th>
                </tr>
              </thead>
              <tbody>
                {pools.slice(0, kTopPools).map((p) => (
                  <tr key={`${p.driver}/${p.pool}`}>
                    <td>
                      <a href={routeHref('pools', { driver: p.driver, pool: p.pool })}>{p.pool}</a>
                    </td>
                    <td>{p.driver}</td>
                    <td>{p.node || <span className="muted">network</span>}</td>
                    <td>
                      <UtilBar used={p.allocatedDevices} total={p.devices} label={`${p.pool} utilisation`} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      </div>
    </>
  );
}
