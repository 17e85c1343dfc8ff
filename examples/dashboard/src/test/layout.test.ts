import { describe, expect, it } from 'vitest';
import type { GraphEdge, GraphNode } from '../api/types';
import { columnOf, edgePath, kColumns, layoutGraph, neighbourhood } from '../graph/layout';

const node = (kind: string, name: string, namespace = ''): GraphNode => ({
  id: `${kind}/${namespace ? `${namespace}/` : ''}${name}`,
  kind: kind as GraphNode['kind'],
  name,
  namespace,
  missing: false,
});
const edge = (from: GraphNode, to: GraphNode, kind = 'x'): GraphEdge => ({ from: from.id, to: to.id, kind, label: '' });

function crossings(l: ReturnType<typeof layoutGraph>): number {
  const segs = l.edges.map((e) => [l.nodes.get(e.from)!, l.nodes.get(e.to)!] as const).filter(([a, b]) => Math.abs(a.column - b.column) === 1);
  let n = 0;
  for (let i = 0; i < segs.length; i++)
    for (let j = i + 1; j < segs.length; j++) {
      const [a1, b1] = segs[i]!;
      const [a2, b2] = segs[j]!;
      const [l1, r1] = a1.column < b1.column ? [a1, b1] : [b1, a1];
      const [l2, r2] = a2.column < b2.column ? [a2, b2] : [b2, a2];
      if (l1.column !== l2.column) continue;
      if ((l1.y - l2.y) * (r1.y - r2.y) < 0) n++;
    }
  return n;
}

describe('layoutGraph', () => {
  it('puts kinds in the order of the DRA chain and skips empty columns', () => {
    const pod = node('Pod', 'p', 'ns');
    const claim = node('ResourceClaim', 'c', 'ns');
    const dev = node('Device', 'gpu-0');
    const n1 = node('Node', 'node-1');
    const l = layoutGraph([n1, dev, claim, pod], [edge(pod, claim), edge(claim, dev), edge(dev, n1)]);
    const xs = [pod, claim, dev, n1].map((n) => l.nodes.get(n.id)!.x);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    expect(new Set(xs).size).toBe(4);
    expect(l.columns.map((c) => c.title)).toEqual(['Pods', 'Claims', 'Devices', 'Nodes']);
    expect(columnOf('ResourceClaimTemplate')).toBe(columnOf('ResourceClaim'));
    expect(columnOf('Unknown')).toBe(kColumns.length);
  });

  it('drops edges whose ends are not in the graph instead of drawing them to the origin', () => {
    const a = node('Pod', 'a', 'ns');
    const b = node('ResourceClaim', 'b', 'ns');
    const l = layoutGraph([a, b], [edge(a, b), { from: a.id, to: 'Device/none', kind: 'x', label: '' }]);
    expect(l.edges).toHaveLength(1);
  });

  it('orders rows so that parallel chains do not cross', () => {
    // Names sort pods a,b,c but their claims z,y,x: name order alone would cross every pair.
    const pods = ['a', 'b', 'c'].map((n) => node('Pod', n, 'ns'));
    const claims = ['z', 'y', 'x'].map((n) => node('ResourceClaim', n, 'ns'));
    const l = layoutGraph([...pods, ...claims], pods.map((p, i) => edge(p, claims[i]!)));
    expect(crossings(l)).toBe(0);
  });

  it('is deterministic and ignores duplicate ids', () => {
    const ns = Array.from({ length: 30 }, (_, i) => node(i % 2 ? 'Device' : 'Pool', `n${(i * 7) % 30}`));
    const es = ns.slice(1).map((n, i) => edge(ns[i]!, n));
    const one = layoutGraph(ns, es);
    const two = layoutGraph([...ns, ...ns.slice(0, 5)], es);
    expect([...two.nodes.entries()].map(([k, v]) => [k, v.x, v.y])).toEqual([...one.nodes.entries()].map(([k, v]) => [k, v.x, v.y]));
  });

  it('neighbourhood holds the node and everything one edge away', () => {
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((n) => node('Device', n));
    const es = [edge(a!, b!), edge(c!, a!), edge(c!, d!)];
    expect([...neighbourhood(a!.id, es)].sort()).toEqual([a!.id, b!.id, c!.id].sort());
  });

  it('draws edges from the facing sides whatever the direction', () => {
    const l = layoutGraph([node('Pod', 'p', 'ns'), node('Node', 'n')], []);
    const p = l.nodes.get('Pod/ns/p')!;
    const n = l.nodes.get('Node/n')!;
    expect(edgePath(p, n).startsWith(`M${p.x + 190},`)).toBe(true);
    expect(edgePath(n, p).startsWith(`M${n.x},`)).toBe(true);
  });
});
