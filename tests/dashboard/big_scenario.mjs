// Writes a scenario with `nodes` x `perNode` devices (default 50 x 100 = 5,000) and some allocated
// claims, to check the dashboard stays usable at that size.

export function bigScenario({ nodes = 50, perNode = 100, claims = 200 } = {}) {
  const docs = [];
  docs.push(`apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: big.example.com
spec:
  selectors:
  - cel:
      expression: "device.driver == 'big.example.com'"`);
  for (let n = 0; n < nodes; n++) {
    const node = `big-node-${String(n).padStart(3, '0')}`;
    docs.push(`apiVersion: v1
kind: Node
metadata:
  name: ${node}
  labels: {kubernetes.io/hostname: ${node}}
status:
  conditions:
  - {type: Ready, status: "True"}`);
    const devices = [];
    for (let d = 0; d < perNode; d++) {
      devices.push(`  - name: dev-${n}-${d}
    attributes:
      model: {string: ${d % 2 ? 'X200' : 'X100'}}
      index: {int: ${d}}
    capacity:
      memory: {value: 16Gi}`);
    }
    docs.push(`apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: ${node}-big.example.com
spec:
  driver: big.example.com
  nodeName: ${node}
  pool: {name: ${node}, generation: 1, resourceSliceCount: 1}
  devices:
${devices.join('\n')}`);
  }
  docs.push(`apiVersion: v1
kind: Namespace
metadata:
  name: big`);
  for (let c = 0; c < claims; c++) {
    const n = c % nodes;
    const node = `big-node-${String(n).padStart(3, '0')}`;
    const d = Math.floor(c / nodes);
    docs.push(`apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: job-${c}
  namespace: big
  uid: 00000000-0000-4000-8000-${String(c).padStart(12, '0')}
spec:
  devices:
    requests:
    - name: dev
      exactly: {deviceClassName: big.example.com}
status:
  allocation:
    devices:
      results:
      - {request: dev, driver: big.example.com, pool: ${node}, device: dev-${n}-${d}}
    nodeSelector:
      nodeSelectorTerms:
      - matchFields:
        - {key: metadata.name, operator: In, values: [${node}]}`);
  }
  return docs.join('\n---\n') + '\n';
}
