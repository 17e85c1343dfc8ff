import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { GraphEdge, GraphNode } from '../api/types';
import { groupPools, poolGroupShape } from '../components/groups';
import { kWindowAbove, useRowWindow } from '../components/useWindow';
import { VirtualList } from '../components/VirtualList';
import { aggregateGraph } from '../graph/aggregate';

afterEach(cleanup);

describe('groupPools', () => {
  const pool = (driver: string, pool: string, node: string, devices: number, allocatedDevices: number) => ({ driver, pool, node, devices, allocatedDevices });
  it('aggregates pools of one driver, placement and size, counting nodes and devices', () => {
    const pools = [
      ...Array.from({ length: 10000 }, (_, i) => pool('gpu.example.com', `node-${i}`, `node-${i}`, 8, i % 4 === 0 ? 1 : 0)),
      pool('gpu.example.com', 'node-0-extra', 'node-0', 8, 8),
      pool('gpu.example.com', 'odd', 'node-1', 4, 0),
      pool('nic.example.com', 'fabric', '', 64, 10),
    ];
    const groups = groupPools(pools);
    expect(groups.map((g) => [g.driver, g.pools, g.nodes, g.devices, g.allocatedDevices])).toEqual([
      ['gpu.example.com', 10001, 10000, 80008, 2508],
      ['gpu.example.com', 1, 1, 4, 0],
      ['nic.example.com', 1, 0, 64, 10],
    ]);
    expect(poolGroupShape(groups[0]!)).toBe('node-local, 8 devices each');
    expect(poolGroupShape(groups[2]!)).toBe('network-attached, 64 devices each');
  });
});

describe('aggregateGraph', () => {
  const n = (kind: string, name: string, attrs: Record<string, string | boolean> = {}, namespace = ''): GraphNode => ({
    id: `${kind}/${namespace ? `${namespace}/` : ''}${name}`, kind: kind as GraphNode['kind'], name, namespace, missing: false, ...attrs,
  });
  const e = (a: GraphNode, b: GraphNode, kind = 'x'): GraphEdge => ({ from: a.id, to: b.id, kind, label: kind });
  it('draws one box per group and one line per linked pair, with counts', () => {
    const nodes: GraphNode[] = [];
    const edges: GraphEdge[] = [];
    for (let i = 0; i < 1000; i++) {
      const node = n('Node', `node-${i}`);
      const pool = n('Pool', `node-${i}`, { driver: 'gpu' });
      const dev = n('Device', `gpu-0-${i}`, { driver: 'gpu', inUse: i < 10 });
      nodes.push(node, pool, dev);
      edges.push(e(dev, pool, 'inPool'), e(pool, node, 'onNode'));
    }
    const claim = n('ResourceClaim', 'c', { allocated: true }, 'team-a');
    nodes.push(claim);
    edges.push(e(claim, nodes.find((x) => x.id === 'Device/gpu-0-3')!, 'allocation'));
    const g = aggregateGraph(nodes, edges);
    const names = g.nodes.map((x) => `${x.kind}:${x.name}`).sort();
    expect(names).toEqual(['Device:10 devices', 'Device:990 devices', 'Node:1,000 nodes', 'Pool:1,000 pools', 'ResourceClaim:1 claims']);
    expect(g.edges.map((x) => x.label).sort()).toEqual(['1 × allocation', '1,000 × onNode', '10 × inPool', '990 × inPool']);
    expect(g.members.get(g.groupOf.get('Node/node-7')!)!.length).toBe(1000);
    expect(g.nodes.find((x) => x.kind === 'Node')!.drivers).toBe('gpu');
  });
});

function Windowed({ count }: { count: number }) {
  const w = useRowWindow(count, 40, 400);
  return (
    <div data-testid="box" onScroll={w.onScroll} style={{ height: 400, overflow: 'auto' }}>
      <span data-testid="range">{`${w.windowed} ${w.first} ${w.last} ${w.padTop} ${w.padBottom}`}</span>
    </div>
  );
}

describe('useRowWindow', () => {
  it('renders every row of a short list', () => {
    render(<Windowed count={kWindowAbove} />);
    expect(screen.getByTestId('range').textContent).toBe(`false 0 ${kWindowAbove} 0 0`);
  });
  it('renders only the rows in view of a long list and follows the scroll', () => {
    render(<Windowed count={10000} />);
    expect(screen.getByTestId('range').textContent).toBe(`true 0 20 0 ${(10000 - 20) * 40}`);
    const box = screen.getByTestId('box');
    box.scrollTop = 4000;
    fireEvent.scroll(box);
    expect(screen.getByTestId('range').textContent).toBe(`true 90 120 3600 ${(10000 - 120) * 40}`);
  });
});

describe('VirtualList with rows still loading', () => {
  it('shows a placeholder for a row not loaded and asks for the rows it renders', () => {
    const asked: [number, number][] = [];
    const items = Array.from({ length: 100000 }, (_, i) => (i < 5 ? { id: `d-${i}` } : undefined));
    render(
      <VirtualList items={items} rowHeight={36} height={360} columns="1fr" header={<span>Device</span>} label="Devices" rowKey={(d) => d.id}
        renderRow={(d) => <span>{d.id}</span>} onRange={(a, b) => asked.push([a, b])} />,
    );
    expect(screen.getAllByRole('option').length).toBe(18);
    expect(screen.getByText('d-4')).toBeTruthy();
    expect(screen.getAllByText('loading…').length).toBe(13);
    expect(asked).toEqual([[0, 18]]);
  });
});
