import { Fragment, useEffect, useMemo, useState } from 'react';
import type { FormEvent } from 'react';
import { apiUrl, getJson } from '../api/client';
import { useResource } from '../api/hooks';
import type { CatalogPackage, NodeCapacity, PackagesAnswer, PlatformInventory } from '../api/types';
import { limitCounts, nodeWhyText, nodesWithRoom, packageDevicesText, stopSentence } from '../components/capacity';
import { Badge, Card, DetailRow, ErrorNote, ExpandButton, Loading, SpacerRow } from '../components/common';
import { useRowWindow } from '../components/useWindow';
import { VirtualList } from '../components/VirtualList';
import { setRouteParams } from '../router';

const kNodeRow = 34;
const kNodeListHeight = 420;
const kNamespaceRow = 37;
const kNamespaceTableHeight = 360;
/** Namespace names offered under the namespace box. */
const kNamespaceSuggestions = 30;

/** The platform's inventory fields (observed state only), cluster-wide. */
function InventoryCards({ inv }: { inv: PlatformInventory }) {
  return (
    <dl className="cards" aria-label="Inventory" data-testid="package-inventory">
      <Card label="Allocatable devices" value={inv.totalGpuAllocatable} title="totalGpuAllocatable: devices of complete, valid pools without a NoSchedule/NoExecute taint" />
      <Card label="Allocated devices" value={inv.draAllocatedDevices} title="draAllocatedDevices" />
      <Card label="Devices" value={inv.draDevices} title="draDevices" />
      <Card label="Resource slices" value={inv.draResourceSlices} title="draResourceSlices" />
      <Card label="Claims" value={inv.draClaimCount} title="draClaimCount" />
      <Card label="Allocated claims" value={inv.draAllocatedClaims} title="draAllocatedClaims" />
    </dl>
  );
}

/** The claim fields per namespace; windowed past kWindowAbove namespaces. */
function NamespaceInventory({ inv }: { inv: PlatformInventory }) {
  const rows = useMemo(() => Object.entries(inv.namespaces ?? {}).sort((a, b) => a[0].localeCompare(b[0])), [inv.namespaces]);
  const win = useRowWindow(rows.length, kNamespaceRow, kNamespaceTableHeight);
  return (
    <section className="panel" aria-labelledby="ns-inventory-h">
      <div className="panel-head">
        <h2 id="ns-inventory-h">Claims per namespace</h2>
        <span className="muted">{rows.length.toLocaleString()} namespaces with claims</span>
      </div>
      {rows.length === 0 ? (
        <p className="empty">No claims.</p>
      ) : (
        <div className={win.windowed ? 'table-window' : undefined} style={win.windowed ? { maxHeight: kNamespaceTableHeight } : undefined} onScroll={win.onScroll}>
          <table data-testid="namespace-inventory" className={win.windowed ? 'one-line' : undefined}>
            <thead>
              <tr>
                <th scope="col">Namespace</th>
                <th scope="col" className="num">Claims</th>
                <th scope="col" className="num">Allocated claims</th>
                <th scope="col" className="num">Allocated devices</th>
              </tr>
            </thead>
            <tbody>
              <SpacerRow height={win.padTop} />
              {rows.slice(win.first, win.last).map(([ns, c]) => (
                <tr key={ns} style={win.windowed ? { height: kNamespaceRow } : undefined}>
                  <td>{ns}</td>
                  <td className="num">{c.draClaimCount.toLocaleString()}</td>
                  <td className="num">{c.draAllocatedClaims.toLocaleString()}</td>
                  <td className="num">{c.draAllocatedDevices.toLocaleString()}</td>
                </tr>
              ))}
              <SpacerRow height={win.padBottom} />
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** Shown instead of the package table when the server has no catalog. */
function NoCatalog() {
  return (
    <section className="panel" aria-labelledby="no-catalog-h" data-testid="no-catalog">
      <div className="panel-head">
        <h2 id="no-catalog-h">No package catalog loaded</h2>
      </div>
      <div className="panel-body">
        <p style={{ marginTop: 0 }}>
          The server counts sellable units once it has a package catalog (docs/packages.md): start it with{' '}
          <code>draforge-server --package-catalog FILE</code>, or set <code>server.packageCatalog</code> in the Helm chart's values.
        </p>
        <p className="muted" style={{ marginBottom: 0 }}>
          The inventory above is counted from the cluster alone and needs no catalog.
        </p>
      </div>
    </section>
  );
}

/** One package's nodes (a row per node: windowed, so 10,000 nodes stay cheap), with a node search. */
function PackageNodes({ pkg }: { pkg: CatalogPackage }) {
  const c = pkg.capacity;
  const [q, setQ] = useState('');
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const needle = q.trim().toLowerCase();
  const nodes = useMemo(() => (needle ? c.nodes.filter((n) => n.node.toLowerCase().includes(needle)) : c.nodes), [c.nodes, needle]);
  const sel = selected === undefined ? undefined : c.nodes.find((n) => n.node === selected);
  const limits = limitCounts(c);
  return (
    <div className="panel-body" data-testid={`package-nodes-${pkg.id}`} aria-label={`Nodes for ${pkg.id}`} role="group">
      <p style={{ margin: '0 0 6px' }} data-testid="package-limits">
        {nodesWithRoom(c).toLocaleString()} of {c.nodes.length.toLocaleString()} nodes take more · limited by{' '}
        {limits.map(([k, n], i) => `${i > 0 ? ', ' : ''}${k} on ${n.toLocaleString()}`).join('') || 'nothing'}
        {c.resourcesChecked === false && ' · cpu and memory not counted (no Node objects)'}
        {c.quota && ` · quotas ${c.quota.quotas.join(', ') || 'none'}${c.quota.units !== undefined ? `: ${c.quota.units} units (${c.quota.why ?? ''})` : ''}`}
      </p>
      <div className="toolbar" style={{ marginBottom: 6 }}>
        <input type="search" aria-label={`Find a node for ${pkg.id}`} placeholder="Find a node…" value={q} onChange={(e) => setQ(e.target.value)} />
        <span className="muted">{nodes.length.toLocaleString()} shown</span>
      </div>
      {nodes.length === 0 ? (
        <p className="empty">No node matches.</p>
      ) : (
        <VirtualList<NodeCapacity>
          items={nodes}
          rowHeight={kNodeRow}
          height={Math.min(kNodeListHeight, nodes.length * kNodeRow)}
          columns="minmax(140px,1fr) 70px 110px minmax(200px,4fr)"
          label={`Nodes for ${pkg.id}`}
          rowKey={(n) => n.node}
          selectedKey={selected}
          onSelect={(n) => setSelected(n.node)}
          header={
            <>
              <span>Node</span>
              <span>More</span>
              <span>Limited by</span>
              <span>Why not more</span>
            </>
          }
          renderRow={(n) => (
            <>
              <span className="mono">{n.node}</span>
              <span className="num" data-testid="node-count">{n.count}</span>
              <span>{n.limitedBy || <span className="muted">—</span>}</span>
              <span className="muted" title={nodeWhyText(n)}>{nodeWhyText(n)}</span>
            </>
          )}
        />
      )}
      {sel && (
        <p style={{ margin: '8px 0 0' }} data-testid="node-why">
          <strong>{sel.node}</strong>: {sel.count} more{sel.limitedBy ? `, limited by ${sel.limitedBy}` : ''}. {nodeWhyText(sel)}
        </p>
      )}
    </div>
  );
}

function PackageTable({ packages, open, onOpen }: { packages: CatalogPackage[]; open: string; onOpen: (id: string | undefined) => void }) {
  return (
    <table data-testid="packages-table" aria-label="Packages">
      <thead>
        <tr>
          <th scope="col">Package</th>
          <th scope="col">Spec name</th>
          <th scope="col" className="num">CPU</th>
          <th scope="col" className="num">Memory</th>
          <th scope="col">Devices</th>
          <th scope="col" className="num">Units that fit</th>
          <th scope="col">Stopped</th>
        </tr>
      </thead>
      <tbody>
        {packages.map((p) => {
          const expanded = p.id === open;
          return (
            <Fragment key={p.id}>
              <tr aria-selected={expanded} data-package={p.id}>
                <td>
                  <ExpandButton expanded={expanded} onToggle={() => onOpen(expanded ? undefined : p.id)}>
                    {p.id}
                  </ExpandButton>
                </td>
                <td>{p.specName || <span className="muted">—</span>}</td>
                <td className="num">{p.cpu}</td>
                <td className="num">{p.memory}</td>
                <td>{packageDevicesText(p)}</td>
                <td className="num" data-testid="package-total">{p.capacity.total.toLocaleString()}</td>
                <td data-testid="package-stop">
                  {p.capacity.stop === 'error' ? <Badge tone="bad">{stopSentence(p.capacity)}</Badge> : stopSentence(p.capacity)}
                </td>
              </tr>
              {expanded && (
                <DetailRow columns={7}>
                  <PackageNodes pkg={p} />
                </DetailRow>
              )}
            </Fragment>
          );
        })}
      </tbody>
    </table>
  );
}

/**
 * Sellable capacity per catalog package (/api/v1/packages): how many more units of each package
 * fit, cluster-wide and per node, optionally within a namespace's ResourceQuotas; and the
 * platform's inventory fields.
 */
export function Packages({ params }: { params: URLSearchParams }) {
  const namespace = params.get('namespace') ?? '';
  const quota = params.get('quota') === 'true';
  const open = params.get('open') ?? '';
  const nav = (patch: Record<string, string | undefined>) =>
    setRouteParams('packages', { namespace: namespace || undefined, quota: quota ? 'true' : undefined, open: open || undefined, ...patch });
  const [nsText, setNsText] = useState(namespace);
  useEffect(() => setNsText(namespace), [namespace]);

  const url = apiUrl('packages', { namespace: namespace || undefined, quota: quota && namespace ? 'true' : undefined });
  const answer = useResource(url, (signal) => getJson<PackagesAnswer>(url, signal));
  const data = answer.data;
  const namespaces = useMemo(() => Object.keys(data?.inventory.namespaces ?? {}).sort(), [data]);
  const needle = nsText.trim().toLowerCase();
  const suggestions = useMemo(() => namespaces.filter((n) => n.toLowerCase().includes(needle)).slice(0, kNamespaceSuggestions), [namespaces, needle]);

  const apply = (e: FormEvent) => {
    e.preventDefault();
    const ns = nsText.trim();
    nav({ namespace: ns || undefined, quota: ns && quota ? 'true' : undefined });
  };

  return (
    <>
      <div className="view-head">
        <h1 style={{ fontSize: 22 }}>Packages</h1>
        <p>
          How many more units of each package fit now
          {data ? ` · namespace ${data.namespace}${data.quota ? ', within its ResourceQuotas' : ''}` : ''}
          {data?.catalog.loaded ? ` · catalog ${data.catalog.source}` : ''}
        </p>
      </div>
      <ErrorNote error={answer.error} />
      {!data ? (
        <Loading what="packages" />
      ) : (
        <>
          <InventoryCards inv={data.inventory} />
          {data.error && (
            <p className="error" role="alert" data-testid="packages-error">
              Capacity could not be counted: {data.error}
            </p>
          )}
          {data.problems.length > 0 && (
            <section className="panel" aria-labelledby="catalog-problems-h" style={{ marginBottom: 16 }} data-testid="catalog-problems">
              <div className="panel-head">
                <h2 id="catalog-problems-h">
                  <Badge tone="warn">warning</Badge> The catalog does not match the cluster
                </h2>
              </div>
              <ul className="reasons" style={{ padding: '8px 16px 12px 34px', margin: 0 }}>
                {data.problems.map((p) => (
                  <li key={p}>
                    <code>{p}</code>
                  </li>
                ))}
              </ul>
            </section>
          )}
          <div className="stack">
            {!data.catalog.loaded ? (
              <NoCatalog />
            ) : (
              <section className="panel" aria-labelledby="packages-h">
                <div className="panel-head" style={{ flexWrap: 'wrap' }}>
                  <h2 id="packages-h">Packages</h2>
                  <span className="muted" data-testid="package-count">
                    {data.packages.length} in the catalog
                  </span>
                  <span className="spacer" />
                  <form onSubmit={apply} className="toolbar" style={{ margin: 0 }} aria-label="Count for a namespace">
                    <label>
                      Namespace
                      <input type="text" aria-label="Namespace" list="package-namespaces" placeholder={data.namespace} value={nsText} onChange={(e) => setNsText(e.target.value)} />
                      <datalist id="package-namespaces">
                        {suggestions.map((n) => (
                          <option key={n} value={n} />
                        ))}
                      </datalist>
                    </label>
                    <label title={namespace ? undefined : 'choose a namespace first'}>
                      <input
                        type="checkbox"
                        checked={quota && !!namespace}
                        disabled={!namespace}
                        onChange={(e) => nav({ quota: e.target.checked ? 'true' : undefined })}
                      />
                      Within quota
                    </label>
                    <button type="submit">Apply</button>
                  </form>
                </div>
                {data.packages.length === 0 ? (
                  <p className="empty">The catalog has no packages.</p>
                ) : (
                  <PackageTable packages={data.packages} open={open} onOpen={(id) => nav({ open: id })} />
                )}
              </section>
            )}
            <NamespaceInventory inv={data.inventory} />
          </div>
        </>
      )}
    </>
  );
}
