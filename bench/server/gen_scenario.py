#!/usr/bin/env python3
"""Writes a large scenario for draforge-server and dashboard benchmarks: NODES nodes, each with one
GPU slice of DEVICES devices, a DeviceClass, and CLAIMS claims (a third allocated and reserved, a
third allocated only, a third pending).

Usage: gen_scenario.py NODES DEVICES CLAIMS [--pending N] [--pods] > big.yaml

--pending N  at most N claims stay pending (default: every third claim); the others of the third
             that would be pending are allocated without a reservation instead. Each pending claim
             costs the server's /api/v1/diagnostics one allocation per node, so a 10,000-node
             scenario keeps this small.
--pods       writes a running Pod for every reserved claim (pod-C on the claim's node, using it).
"""
import argparse
import sys

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("nodes", type=int)
parser.add_argument("devices", type=int)
parser.add_argument("claims", type=int)
parser.add_argument("--pending", type=int, default=None)
parser.add_argument("--pods", action="store_true")
args = parser.parse_args()
nodes, devices, claims = args.nodes, args.devices, args.claims

out = []
out.append("""apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.bench.example.com}
spec:
  selectors:
  - cel: {expression: "device.driver == 'gpu.bench.example.com'"}
""")
for n in range(nodes):
    out.append("""apiVersion: v1
kind: Node
metadata:
  name: node-%d
  labels: {kubernetes.io/hostname: node-%d}
""" % (n, n))
    devs = "".join("""  - name: gpu-%d
    attributes:
      model: {string: H100}
      index: {int: %d}
    capacity:
      memory: {value: 80Gi}
""" % (d, d) for d in range(devices))
    out.append("""apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-%d-gpu}
spec:
  driver: gpu.bench.example.com
  nodeName: node-%d
  pool: {name: node-%d, generation: 1, resourceSliceCount: 1}
  devices:
%s""" % (n, n, n, devs))
pending = 0
for c in range(claims):
    node, dev = c % nodes, c // nodes
    status = ""
    stays_pending = c % 3 == 2 and (args.pending is None or pending < args.pending)
    if stays_pending:
        pending += 1
    if not stays_pending and dev < devices:
        status = """status:
  allocation:
    devices:
      results:
      - {request: gpu, driver: gpu.bench.example.com, pool: node-%d, device: gpu-%d}
    nodeSelector:
      nodeSelectorTerms:
      - matchFields:
        - {key: metadata.name, operator: In, values: [node-%d]}
""" % (node, dev, node)
        if c % 3 == 0:
            status += "  reservedFor:\n  - {resource: pods, name: pod-%d}\n" % c
    out.append("""apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: claim-%d, namespace: bench}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.bench.example.com}
%s""" % (c, status))
    if args.pods and status and c % 3 == 0:
        out.append("""apiVersion: v1
kind: Pod
metadata: {name: pod-%d, namespace: bench}
spec:
  nodeName: node-%d
  containers:
  - name: main
    image: registry.example/job:1.0
    resources:
      claims:
      - name: gpu
  resourceClaims:
  - name: gpu
    resourceClaimName: claim-%d
status:
  phase: Running
""" % (c, node, c))
sys.stdout.write("---\n".join(out))
