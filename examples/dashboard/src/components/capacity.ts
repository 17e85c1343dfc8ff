// Words and sums of the availability and packages views, in the CLI's words (`draforge get pools
// --availability`, `draforge package capacity`), so a figure read on the page and one read in a
// terminal say the same thing.
import type { CatalogPackage, NodeCapacity, PackageCapacity, PoolAvailability } from '../api/types';

/** Why counting a package's units ended, as `draforge package capacity` prints it (STOPPED). */
export function stopSentence(c: PackageCapacity): string {
  switch (c.stop) {
    case 'exhausted':
      return 'no node fits another';
    case 'cap':
      return `cap of ${c.cap} reached`;
    case 'quota':
      return `quota: ${c.quota?.why ?? ''}`;
    case 'error':
      return `error on node ${c.errorNode ?? ''}: ${c.error ?? ''}`;
    case 'no-nodes':
      return 'no nodes in the input';
    default:
      return String(c.stop);
  }
}

/** The devices one unit takes: "2 × nvidia-rtx-3080", or "none" for a CPU-only package. */
export function packageDevicesText(p: CatalogPackage): string {
  return p.gpu > 0 ? `${p.gpu} × ${p.deviceClassName ?? ''}` : 'none';
}

/** Why a node takes no more units: the explanation, else the scheduler's reasons. */
export function nodeWhyText(n: NodeCapacity): string {
  return n.why || (n.reasons ?? []).join('; ') || '—';
}

/** Nodes that take at least one more unit. */
export function nodesWithRoom(c: PackageCapacity): number {
  let n = 0;
  for (const x of c.nodes) if (x.count > 0) n++;
  return n;
}

/** What stops each node, counted: [["devices", 2], ["cpu", 1]], most frequent first. */
export function limitCounts(c: PackageCapacity): [string, number][] {
  const counts = new Map<string, number>();
  for (const x of c.nodes) {
    const k = x.limitedBy || 'devices or resources';
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** A pool's partition summary: "4g.40gb 1/2, full 0/1" (type allocatable/total), as the CLI says it. */
export function partitionsText(p: PoolAvailability): string {
  return (p.partitionSummary ?? []).map((s) => `${s.type} ${s.allocatable}/${s.total}`).join(', ');
}

/** A pool's shareable summary: "0 free, 1 shared; bandwidth 300G/400G" (available/total). */
export function shareableText(p: PoolAvailability): string {
  const s = p.shareableSummary;
  if (!s) return '';
  let out = `${s.fullyAvailableDevices ?? 0} free, ${s.partiallyAvailableDevices ?? 0} shared`;
  for (const c of s.capacity ?? []) out += `; ${c.name} ${c.available}/${c.total}`;
  return out;
}

/** An unset count (an incomplete pool has none) is shown as "-", as the CLI prints it. */
export function countText(n: number | undefined): string {
  return n === undefined ? '-' : n.toLocaleString();
}

export interface AvailabilityTotals {
  /** Pools whose counts are set (complete pools). */
  counted: number;
  /** Pools with a validationError (incomplete, or a partition/shareable problem). */
  withErrors: number;
  totalDevices: number;
  allocatedDevices: number;
  availableDevices: number;
  unavailableDevices: number;
}

/** Sums of the device counts over the pools given (those the status lists). */
export function availabilityTotals(pools: readonly PoolAvailability[]): AvailabilityTotals {
  const t: AvailabilityTotals = { counted: 0, withErrors: 0, totalDevices: 0, allocatedDevices: 0, availableDevices: 0, unavailableDevices: 0 };
  for (const p of pools) {
    if (p.validationError) t.withErrors++;
    if (p.totalDevices === undefined) continue;
    t.counted++;
    t.totalDevices += p.totalDevices;
    t.allocatedDevices += p.allocatedDevices ?? 0;
    t.availableDevices += p.availableDevices ?? 0;
    t.unavailableDevices += p.unavailableDevices ?? 0;
  }
  return t;
}
