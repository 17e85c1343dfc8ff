// Level of detail for the relationship graph: past kDetailAbove objects (a 10,000-node cluster
// has tens of thousands) the graph is drawn with one box per group of objects of one kind that
// a filter can pick out (pods and claims per namespace, slices, devices and pools per driver,
// nodes per set of drivers), and one line per pair of linked groups. Selecting a group lists
// its members, each a way into the detailed graph around it.

import type { GraphEdge, GraphNode } from '../api/types';

export const kDetailAbove = 6000;

export interface AggregateGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** The objects of each group, by group id. */
  members: Map<string, GraphNode[]>;
  /** The group of each object, by object id. */
  groupOf: Map<string, string>;
}

const kNoun: Record<string, string> = {
  Pod: 'pods',
  ResourceClaim: 'claims',
  ResourceClaimTemplate: 'claim templates',
  DeviceClass: 'device classes',
  ResourceSlice: 'slices',
  Device: 'devices',
  Pool: 'pools',
  Node: 'nodes',
};

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** The group key of an object and the attributes its group box carries (what a filter needs). */
function groupOf(n: GraphNode, nodeDrivers: Map<string, string>): { key: string; attrs: Record<string, string | boolean> } {
  switch (n.kind) {
    case 'Pod':
    case 'ResourceClaimTemplate':
      return { key: n.namespace, attrs: {} };
    case 'ResourceClaim':
      return { key: `${n.namespace}|${n.allocated === true}`, attrs: { allocated: n.allocated === true } };
    case 'DeviceClass':
      return { key: n.id, attrs: {} };
    case 'Device':
      return { key: `${str(n.driver)}|${n.inUse === true}`, attrs: { driver: str(n.driver), inUse: n.inUse === true } };
    case 'ResourceSlice':
    case 'Pool':
      return { key: str(n.driver), attrs: { driver: str(n.driver) } };
    case 'Node': {
      const drivers = nodeDrivers.get(n.id) ?? '';
      return { key: drivers, attrs: { drivers } };
    }
    default:
      return { key: n.kind, attrs: {} };
  }
}

/** Groups `nodes` and their `edges` (see the file comment). Deterministic, O(objects + links). */
export function aggregateGraph(nodes: readonly GraphNode[], edges: readonly GraphEdge[]): AggregateGraph {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  // A node's group is the set of drivers whose pools sit on it.
  const driverSets = new Map<string, Set<string>>();
  for (const e of edges) {
    const a = byId.get(e.from);
    const b = byId.get(e.to);
    if (!a || !b) continue;
    const [pool, node] = a.kind === 'Pool' && b.kind === 'Node' ? [a, b] : b.kind === 'Pool' && a.kind === 'Node' ? [b, a] : [undefined, undefined];
    if (!pool || !node) continue;
    const set = driverSets.get(node.id) ?? new Set<string>();
    set.add(str(pool.driver));
    driverSets.set(node.id, set);
  }
  const nodeDrivers = new Map([...driverSets].map(([id, s]) => [id, [...s].sort().join(', ')]));

  const groups = new Map<string, GraphNode>();
  const members = new Map<string, GraphNode[]>();
  const groupOfId = new Map<string, string>();
  for (const n of nodes) {
    const { key, attrs } = groupOf(n, nodeDrivers);
    const id = `group:${n.kind}:${key}`;
    groupOfId.set(n.id, id);
    let list = members.get(id);
    if (!list) {
      list = [];
      members.set(id, list);
      groups.set(id, { id, kind: n.kind, name: '', namespace: n.kind === 'DeviceClass' ? '' : n.namespace, missing: false, group: true, ...attrs });
    }
    list.push(n);
  }
  for (const [id, g] of groups) {
    const list = members.get(id)!;
    g.count = list.length;
    g.missing = list.every((m) => m.missing);
    g.name = g.kind === 'DeviceClass' ? list[0]!.name : `${list.length.toLocaleString()} ${kNoun[g.kind] ?? g.kind}`;
  }

  const links = new Map<string, GraphEdge & { count: number }>();
  for (const e of edges) {
    const from = groupOfId.get(e.from);
    const to = groupOfId.get(e.to);
    if (!from || !to || from === to) continue;
    const key = `${from}>${to}>${e.kind}`;
    const l = links.get(key);
    if (l) l.count++;
    else links.set(key, { from, to, kind: e.kind, label: e.label, count: 1 });
  }
  const aggEdges = [...links.values()].map(({ count, ...e }) => ({ ...e, label: `${count.toLocaleString()} × ${e.label || e.kind}` }));
  return { nodes: [...groups.values()], edges: aggEdges, members, groupOf: groupOfId };
}
