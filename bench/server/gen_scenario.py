#!/usr/bin/env python3
"""Writes a large scenario for draforge-server benchmarks: NODES nodes, each with one GPU slice of
DEVICES devices, a DeviceClass, and CLAIMS claims (a third allocated and reserved, a third
allocated only, a third pending).

Usage: gen_scenario.py NODES DEVICES CLAIMS > big.yaml
"""
import sys

nodes, devices, claims = (int(a) for a in sys.argv[1:4])
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
for c in range(claims):
    node, dev = c % nodes, c // nodes
    status = ""
    if c % 3 != 2 and dev < devices:
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
sys.stdout.write("---\n".join(out))
