// Aggregation of pools (and so of nodes) into groups of the same shape, the unit a 10,000-node
// cluster is read in: "9,990 nodes with one pool of 8 gpu.example.com devices, 21% allocated".

export interface PoolLike {
  driver: string;
  pool: string;
  node: string;
  devices: number;
  allocatedDevices: number;
}

export interface PoolGroup {
  /** Stable key (driver, placement, devices per pool), also the `group` URL parameter. */
  key: string;
  driver: string;
  /** Node-local pools (one node each) or network-attached ones (no node). */
  nodeLocal: boolean;
  devicesPerPool: number;
  pools: number;
  nodes: number;
  devices: number;
  allocatedDevices: number;
}

export function poolGroupKey(p: PoolLike): string {
  return `${p.driver}|${p.node ? 'node' : 'network'}|${p.devices}`;
}

/** What a group's pools have in common, in words ("node-local, 8 devices each"). */
export function poolGroupShape(g: PoolGroup): string {
  return `${g.nodeLocal ? 'node-local' : 'network-attached'}, ${g.devicesPerPool.toLocaleString()} device${g.devicesPerPool === 1 ? '' : 's'} each`;
}

/** Pools grouped by driver, placement and size; by driver, then most pools first. */
export function groupPools(pools: readonly PoolLike[]): PoolGroup[] {
  const groups = new Map<string, PoolGroup & { nodeSet: Set<string> }>();
  for (const p of pools) {
    const key = poolGroupKey(p);
    let g = groups.get(key);
    if (!g) {
      g = { key, driver: p.driver, nodeLocal: p.node !== '', devicesPerPool: p.devices, pools: 0, nodes: 0, devices: 0, allocatedDevices: 0, nodeSet: new Set() };
      groups.set(key, g);
    }
    g.pools++;
    g.devices += p.devices;
    g.allocatedDevices += p.allocatedDevices;
    if (p.node) g.nodeSet.add(p.node);
  }
  return [...groups.values()]
    .map(({ nodeSet, ...g }) => ({ ...g, nodes: nodeSet.size }))
    .sort((a, b) => a.driver.localeCompare(b.driver) || b.pools - a.pools || a.key.localeCompare(b.key));
}
