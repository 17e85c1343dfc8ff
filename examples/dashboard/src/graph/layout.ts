// Layered layout of the relationship graph: one column per kind in the order of the DRA chain
// (Pod -> claim -> class -> slice -> device -> pool -> node), rows ordered to keep edges short.
// Deterministic: the same graph always gets the same picture, so a live refresh does not shuffle.

import type { GraphEdge, GraphNode } from '../api/types';

export const kColumns: { title: string; kinds: string[] }[] = [
  { title: 'Pods', kinds: ['Pod'] },
  { title: 'Claims', kinds: ['ResourceClaim', 'ResourceClaimTemplate'] },
  { title: 'Device classes', kinds: ['DeviceClass'] },
  { title: 'Resource slices', kinds: ['ResourceSlice'] },
  { title: 'Devices', kinds: ['Device'] },
  { title: 'Pools', kinds: ['Pool'] },
  { title: 'Nodes', kinds: ['Node'] },
];

export const kNodeWidth = 190;
export const kNodeHeight = 36;
const kRowGap = 10;
const kColGap = 110;
export const kTop = 40;

export interface PlacedNode {
  node: GraphNode;
  column: number;
  x: number;
  y: number;
}

export interface Layout {
  nodes: Map<string, PlacedNode>;
  /** Edges whose both ends are placed (an edge to an unknown id is dropped, not drawn to 0,0). */
  edges: GraphEdge[];
  width: number;
  height: number;
  /** Columns actually used, with their x, for the headings. */
  columns: { title: string; x: number }[];
}

export function columnOf(kind: string): number {
  const i = kColumns.findIndex((c) => c.kinds.includes(kind));
  return i < 0 ? kColumns.length : i;
}

// Numeric-aware: job-2 before job-10, as people read them.
const kCollator = new Intl.Collator('en', { numeric: true });

function compareNodes(a: GraphNode, b: GraphNode): number {
  return kCollator.compare(a.namespace, b.namespace) || kCollator.compare(a.name, b.name) || kCollator.compare(a.id, b.id);
}

/**
 * Places every node. Rows start in name order, then a few barycentre sweeps (each node moves to the
 * mean relative row of its neighbours on one side, ties broken by the previous order) reduce
 * crossings. Empty columns are skipped so a filtered graph stays compact.
 */
export function layoutGraph(nodes: readonly GraphNode[], edges: readonly GraphEdge[]): Layout {
  const byColumn: GraphNode[][] = Array.from({ length: kColumns.length + 1 }, () => []);
  const ids = new Set<string>();
  for (const n of nodes) {
    if (ids.has(n.id)) continue;
    ids.add(n.id);
    byColumn[columnOf(n.kind)]!.push(n);
  }
  for (const col of byColumn) col.sort(compareNodes);
  const kept = edges.filter((e) => ids.has(e.from) && ids.has(e.to) && e.from !== e.to);

  const neighbours = new Map<string, string[]>();
  for (const e of kept) {
    (neighbours.get(e.from) ?? neighbours.set(e.from, []).get(e.from)!).push(e.to);
    (neighbours.get(e.to) ?? neighbours.set(e.to, []).get(e.to)!).push(e.from);
  }
  const colOfId = new Map<string, number>();
  byColumn.forEach((col, c) => col.forEach((n) => colOfId.set(n.id, c)));

  const rank = new Map<string, number>();
  const setRanks = () => byColumn.forEach((col) => col.forEach((n, i) => rank.set(n.id, i)));
  setRanks();

  // Position of a node within its column in [0, 1], so columns of different lengths compare.
  const pos = (id: string) => {
    const len = byColumn[colOfId.get(id)!]!.length;
    return len > 1 ? rank.get(id)! / (len - 1) : 0.5;
  };
  // Sorts column c by the mean position of its neighbours on one side (any column there: an
  // allocation edge skips from claims to devices), ties kept in the previous order.
  const sweep = (c: number, side: -1 | 1) => {
    const col = byColumn[c]!;
    const score = new Map<string, number>();
    for (const n of col) {
      const ps = (neighbours.get(n.id) ?? []).filter((m) => Math.sign(colOfId.get(m)! - c) === side).map(pos);
      score.set(n.id, ps.length > 0 ? ps.reduce((a, b) => a + b, 0) / ps.length : pos(n.id));
    }
    col.sort((a, b) => score.get(a.id)! - score.get(b.id)! || rank.get(a.id)! - rank.get(b.id)!);
    col.forEach((n, i) => rank.set(n.id, i));
  };
  const used = byColumn.map((col, c) => (col.length > 0 ? c : -1)).filter((c) => c >= 0);
  for (let pass = 0; pass < 3; pass++) {
    for (let i = 1; i < used.length; i++) sweep(used[i]!, -1);
    for (let i = used.length - 2; i >= 0; i--) sweep(used[i]!, 1);
  }

  const placed = new Map<string, PlacedNode>();
  const columns: { title: string; x: number }[] = [];
  let height = 0;
  used.forEach((c, slot) => {
    const x = slot * (kNodeWidth + kColGap);
    columns.push({ title: kColumns[c]?.title ?? 'Other', x });
    byColumn[c]!.forEach((n, i) => {
      const y = kTop + i * (kNodeHeight + kRowGap);
      placed.set(n.id, { node: n, column: slot, x, y });
      height = Math.max(height, y + kNodeHeight);
    });
  });
  const width = used.length > 0 ? used.length * (kNodeWidth + kColGap) - kColGap : 0;
  return { nodes: placed, edges: kept, width, height: Math.max(height, kTop), columns };
}

/** Ids of `id` and everything one edge away from it. */
export function neighbourhood(id: string, edges: readonly GraphEdge[]): Set<string> {
  const out = new Set<string>([id]);
  for (const e of edges) {
    if (e.from === id) out.add(e.to);
    if (e.to === id) out.add(e.from);
  }
  return out;
}

/** Path for an edge between two placed nodes: a smooth curve from the facing sides. */
export function edgePath(a: PlacedNode, b: PlacedNode): string {
  const leftToRight = a.x <= b.x;
  const x1 = leftToRight ? a.x + kNodeWidth : a.x;
  const x2 = leftToRight ? b.x : b.x + kNodeWidth;
  const y1 = a.y + kNodeHeight / 2;
  const y2 = b.y + kNodeHeight / 2;
  if (a.x === b.x) {
    // Same column (rare): bow out to the right.
    const bow = kNodeWidth + 40;
    return `M${a.x + kNodeWidth},${y1} C${a.x + bow},${y1} ${b.x + bow},${y2} ${b.x + kNodeWidth},${y2}`;
  }
  const dx = Math.max(40, Math.abs(x2 - x1) / 2);
  const c1 = leftToRight ? x1 + dx : x1 - dx;
  const c2 = leftToRight ? x2 - dx : x2 + dx;
  return `M${x1},${y1} C${c1},${y1} ${c2},${y2} ${x2},${y2}`;
}
