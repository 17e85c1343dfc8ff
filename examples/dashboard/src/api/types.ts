// Response shapes of draforge-server's API, written from examples/server/openapi.json (1.0.0).
// Field names are the server's; keep them in step with that document (additive changes are
// listed in examples/server/API-CHANGES.md).

export interface SnapshotRef {
  generation: number;
  resourceVersion: string;
}

export interface Counts {
  nodes: number;
  pods: number;
  deviceClasses: number;
  deviceTaintRules: number;
  resourceSlices: number;
  pools: number;
  drivers: number;
  devices: number;
  claims: number;
  allocatedClaims: number;
  reservedClaims: number;
  pendingClaims: number;
  allocatedDevices: number;
  claimTemplates: number;
  anomalies: number;
}

export interface DriverSummary {
  driver: string;
  pools: number;
  resourceSlices: number;
  devices: number;
  allocatedDevices: number;
  utilisation: number;
}

export interface PoolSummary {
  driver: string;
  pool: string;
  node: string;
  devices: number;
  allocatedDevices: number;
  utilisation: number;
}

export interface Summary {
  snapshot: SnapshotRef;
  counts: Counts;
  drivers: DriverSummary[];
  pools: PoolSummary[];
}

export interface CounterSet {
  name: string;
  counters: Record<string, string>;
  consumed: Record<string, string>;
}

export interface Pool {
  driver: string;
  pool: string;
  node: string;
  generation: number;
  resourceSliceCount: number;
  resourceSlices: string[];
  staleSlices: number;
  complete: boolean;
  invalid: boolean;
  invalidReason: string;
  devices: number;
  allocatedDevices: number;
  taintedDevices: number;
  utilisation: number;
  sharedCounters: CounterSet[];
}

export interface PoolList {
  snapshot: SnapshotRef;
  items: Pool[];
}

export interface Taint {
  key: string;
  value: string;
  effect: string;
  timeAdded: string;
  source: string;
}

export interface Holder {
  namespace: string;
  name: string;
  request: string;
  shareID: string;
  adminAccess: boolean;
}

export interface CounterConsumption {
  counterSet: string;
  counters: Record<string, string>;
}

/** An attribute as in the API: exactly one of the fields is set. */
export interface DeviceAttribute {
  string?: string;
  int?: number;
  bool?: boolean;
  version?: string;
  [other: string]: unknown;
}

export interface DeviceCapacity {
  value?: string;
  [other: string]: unknown;
}

export interface Device {
  id: string;
  driver: string;
  pool: string;
  name: string;
  resourceSlice: string;
  node: string;
  attributes: Record<string, DeviceAttribute>;
  capacity: Record<string, DeviceCapacity>;
  consumesCounters: CounterConsumption[];
  taints: Taint[];
  heldBy: Holder[];
  inUse: boolean;
  allocated: boolean;
}

export interface DeviceList {
  snapshot: SnapshotRef;
  total: number;
  offset: number;
  limit: number;
  items: Device[];
}

export interface ClaimRequest {
  name: string;
  deviceClassName: string;
  allocationMode: string;
  count: number;
  adminAccess: boolean;
  selectors: string[];
  firstAvailable: ClaimRequest[];
}

export interface AllocationResult {
  request: string;
  driver: string;
  pool: string;
  device: string;
  shareID: string;
  adminAccess: boolean;
  deviceKnown: boolean;
}

export interface ConsumerRef {
  apiGroup: string;
  resource: string;
  name: string;
  uid: string;
}

export type ClaimState = 'pending' | 'allocated' | 'reserved';

export interface Claim {
  namespace: string;
  name: string;
  uid: string;
  creationTimestamp: string;
  state: ClaimState;
  deleting: boolean;
  requests: ClaimRequest[];
  allocation: { node: string; results: AllocationResult[] } | null;
  reservedFor: ConsumerRef[];
  pods: string[];
  status: Record<string, unknown>;
}

export interface ClaimList {
  snapshot: SnapshotRef;
  items: Claim[];
}

export type GraphNodeKind =
  | 'Pod'
  | 'ResourceClaim'
  | 'ResourceClaimTemplate'
  | 'DeviceClass'
  | 'ResourceSlice'
  | 'Device'
  | 'Pool'
  | 'Node';

export interface GraphNode {
  id: string;
  kind: GraphNodeKind;
  name: string;
  namespace: string;
  missing: boolean;
  [attribute: string]: string | number | boolean;
}

export interface GraphEdge {
  from: string;
  to: string;
  kind: string;
  label: string;
  allocation?: {
    request: string;
    driver: string;
    pool: string;
    device: string;
    shareID: string;
    adminAccess: boolean;
    node: string;
    nodeKnown: boolean;
  };
}

export interface Graph {
  snapshot: SnapshotRef;
  nodes: GraphNode[];
  edges: GraphEdge[];
  requests: unknown[];
}

export interface FunnelStep {
  step: string;
  remaining: number;
  detail: string;
}

export interface RequestFunnel {
  request: string;
  deviceClass: string;
  needed: number;
  allMode: boolean;
  adminAccess: boolean;
  steps: FunnelStep[];
  firstEmpty: string;
  firstShort: string;
  firstError: string;
  sentence: string;
}

export interface PendingClaim {
  namespace: string;
  name: string;
  node: string;
  /** "allocated" | "unschedulable" | "waiting-for-consumer" | "error" (openapi.json PendingClaim). */
  outcome: string;
  outcomeDetail: string;
  summary: string;
  error: string;
  /** Pods that reference the claim ("namespace/name"); empty for waiting-for-consumer. */
  consumers: string[];
  /** waiting-for-consumer only: the nodes tried, and those on which the claim would fit now. */
  nodesTried: number;
  fitsOn: string[];
  requests: RequestFunnel[];
  /** Why the claim does not fit when every request alone could (openapi.json ClaimConflict). */
  conflicts: ClaimConflict[];
  /** Explained without a node (no consumer bound to a node): on how many nodes it fits, and why not
   * on the others ("" / 0 / false / [] with a node). At most 1000 nodes, in name order. */
  nodesSummary: string;
  nodesTotal: number;
  nodesTruncated: boolean;
  nodes: NodeVerdict[];
}

/** Whether the claim can be allocated on one node (openapi.json NodeVerdict). */
export interface NodeVerdict {
  node: string;
  fits: boolean;
  /** "allocated" | "unschedulable" | "error". */
  outcome: string;
  /** One sentence when it does not fit; "" when it fits. */
  reason: string;
}

export interface ClaimConflict {
  /** "same-device" | "counters" | "capacity" | "constraint" | "compatibility". */
  kind: string;
  requests: string[];
  subject: string;
  sentence: string;
}

export interface Anomaly {
  kind: string;
  severity: 'warning' | 'error';
  object: string;
  message: string;
}

export interface Diagnostics {
  snapshot: SnapshotRef;
  pending: PendingClaim[];
  anomalies: Anomaly[];
}

export interface ChangeEvent {
  generation: number;
  resourceVersion: string;
  previousGeneration: number;
  changes: { type: 'ADDED' | 'MODIFIED' | 'DELETED'; kind: string; namespace: string; name: string }[];
}

// ---- /api/v1/pool-status (schema PoolStatus): a ResourcePoolStatusRequest's status (KEP-5677) ----

export interface PartitionSummary {
  attribute: string;
  type: string;
  total: number;
  allocatable: number;
}

export interface ShareableCapacity {
  name: string;
  total: string;
  consumed: string;
  available: string;
}

export interface ShareableSummary {
  fullyAvailableDevices: number;
  partiallyAvailableDevices: number;
  capacity?: ShareableCapacity[];
}

/** One pool of the status; the counts are unset when the pool is incomplete (validationError). */
export interface PoolAvailability {
  driver: string;
  poolName: string;
  nodeName?: string;
  generation?: number;
  resourceSliceCount?: number;
  totalDevices?: number;
  allocatedDevices?: number;
  availableDevices?: number;
  unavailableDevices?: number;
  validationError?: string;
  partitionSummary?: PartitionSummary[];
  shareableSummary?: ShareableSummary;
}

export interface StatusCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface PoolStatus {
  poolCount?: number;
  pools?: PoolAvailability[];
  conditions: StatusCondition[];
}

// ---- /api/v1/packages: sellable capacity per catalog package (`draforge package capacity`) ----

export type CapacityStop = 'exhausted' | 'cap' | 'error' | 'no-nodes' | 'quota';

export interface NodeCapacity {
  node: string;
  count: number;
  reasons?: string[];
  why?: string;
  /** devices, cpu, memory, pods, ... (set when the pod's resources were counted) */
  limitedBy?: string;
}

export interface CapacityQuota {
  quotas: string[];
  units?: number;
  why?: string;
}

export interface PackageCapacity {
  prototype: string;
  total: number;
  cap: number;
  stop: CapacityStop;
  error?: string;
  errorNode?: string;
  resourcesChecked?: boolean;
  quota?: CapacityQuota;
  nodes: NodeCapacity[];
}

export interface CatalogPackage {
  id: string;
  specName?: string;
  cpu: string;
  memory: string;
  gpu: number;
  deviceClassName?: string;
  capacity: PackageCapacity;
}

export interface ClaimInventory {
  draClaimCount: number;
  draAllocatedClaims: number;
  draAllocatedDevices: number;
}

export interface PlatformInventory extends ClaimInventory {
  totalGpuAllocatable: number;
  draResourceSlices: number;
  draDevices: number;
  namespaces?: Record<string, ClaimInventory>;
}

export interface PackagesAnswer {
  snapshot: SnapshotRef;
  catalog: { loaded: boolean; source: string };
  /** The catalog checked against the cluster (an unknown DeviceClass, ...), with field paths. */
  problems: string[];
  namespace: string;
  quota: boolean;
  packages: CatalogPackage[];
  /** The capacity engine failed on the cluster's objects (packages is then []). */
  error?: string;
  inventory: PlatformInventory;
}

// /api/v1/whatif/replay (openapi.json 1.9.0: WhatifRequest, WhatifReplay).

/** One what-if edit, applied to a copy of the snapshot before the replay. */
export type WhatifEdit =
  | { op: 'add-nodes'; like: string; count: number }
  | { op: 'drain-node' | 'delete-node' | 'delete-claim' | 'delete-pod'; name: string };

export type WhatifPolicy = 'first-fit' | 'most-allocated' | 'least-allocated';

export interface WhatifRequest {
  policy?: WhatifPolicy;
  explain?: boolean;
  edits?: WhatifEdit[];
}

export interface WhatifDeviceResult {
  request: string;
  driver: string;
  pool: string;
  device: string;
  [field: string]: unknown;
}

export interface WhatifPlacedClaim {
  claim: string;
  existing: boolean;
  results: WhatifDeviceResult[];
}

export interface WhatifNodeReason {
  node: string;
  filter: string;
  reason: string;
}

export interface WhatifReplay {
  /** With edits only: what each edit did. */
  edits?: string[];
  policy: WhatifPolicy;
  /** The pending pods in kube-scheduler's queue order. */
  order: string[];
  /** `feasible`: every node the pod fits on at its turn, by name (the policy chose `node`). */
  placed: { pod: string; node: string; claims: WhatifPlacedClaim[]; feasible: string[] }[];
  pending: { pod: string; nodes: WhatifNodeReason[] }[];
  /** Only when the server's budget changed the answer (explain off). */
  notes?: string[];
}
