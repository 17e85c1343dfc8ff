"""A scripted Kubernetes API server for the Python suite: discovery, lists and watches over plain
HTTP, enough for draforge.kube's live source (list + watch). Objects are served from a dict;
``add()`` stores one and sends an ADDED event to every open watch of its resource."""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

# plural resource -> (apiVersion, kind, path prefix)
RESOURCES = {
    "deviceclasses": ("resource.k8s.io/v1", "DeviceClass", "/apis/resource.k8s.io/v1"),
    "resourceslices": ("resource.k8s.io/v1", "ResourceSlice", "/apis/resource.k8s.io/v1"),
    "resourceclaims": ("resource.k8s.io/v1", "ResourceClaim", "/apis/resource.k8s.io/v1"),
    "resourceclaimtemplates": ("resource.k8s.io/v1", "ResourceClaimTemplate", "/apis/resource.k8s.io/v1"),
    "devicetaintrules": ("resource.k8s.io/v1", "DeviceTaintRule", "/apis/resource.k8s.io/v1"),
    "pods": ("v1", "Pod", "/api/v1"),
    "nodes": ("v1", "Node", "/api/v1"),
}
PLURAL_OF_KIND = {kind: plural for plural, (_, kind, _) in RESOURCES.items()}


class FakeApiServer:
    def __init__(self, objects=()):
        self._lock = threading.Condition()
        self._version = 100
        self._objects = {plural: [] for plural in RESOURCES}
        self._events = {plural: [] for plural in RESOURCES}  # (resourceVersion, event)
        self._closed = False
        for obj in objects:
            self._store(obj)
        self.requests = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                server.requests.append(self.path)
                server._serve(self)

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._http.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._http.server_address[1]}"
        threading.Thread(target=self._http.serve_forever, daemon=True).start()

    def kubeconfig(self, path):
        path.write_text(json.dumps({
            "apiVersion": "v1", "kind": "Config", "current-context": "fake",
            "clusters": [{"name": "fake", "cluster": {"server": self.url}}],
            "users": [{"name": "fake", "user": {"token": "t"}}],
            "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "fake", "namespace": "team-a"}}]}))
        return path

    def close(self):
        with self._lock:
            self._closed = True
            self._lock.notify_all()
        self._http.shutdown()
        self._http.server_close()

    def add(self, obj):
        with self._lock:
            plural = self._store(obj)
            self._events[plural].append((self._version, {"type": "ADDED", "object": obj}))
            self._lock.notify_all()

    def _store(self, obj):
        plural = PLURAL_OF_KIND[obj["kind"]]
        self._version += 1
        obj.setdefault("metadata", {})["resourceVersion"] = str(self._version)
        self._objects[plural].append(obj)
        return plural

    def _serve(self, h):
        url = urlparse(h.path)
        query = parse_qs(url.query)
        if url.path == "/api":
            return self._json(h, {"kind": "APIVersions", "versions": ["v1"]})
        if url.path == "/apis/resource.k8s.io":
            return self._json(h, {"kind": "APIGroup", "name": "resource.k8s.io",
                                  "versions": [{"groupVersion": "resource.k8s.io/v1", "version": "v1"}],
                                  "preferredVersion": {"groupVersion": "resource.k8s.io/v1", "version": "v1"}})
        for prefix, version in (("/apis/resource.k8s.io/v1", "resource.k8s.io/v1"), ("/api/v1", "v1")):
            if url.path == prefix:
                return self._json(h, {"kind": "APIResourceList", "groupVersion": version, "resources": [
                    {"name": p, "kind": k, "namespaced": p not in ("deviceclasses", "resourceslices", "devicetaintrules", "nodes")}
                    for p, (v, k, _) in RESOURCES.items() if v == version]})
        plural = url.path.rstrip("/").rsplit("/", 1)[-1]
        if plural not in RESOURCES or not url.path.startswith(RESOURCES[plural][2]):
            return self._json(h, {"kind": "Status", "status": "Failure", "reason": "NotFound", "code": 404}, 404)
        if query.get("watch") == ["true"]:
            return self._watch(h, plural, int((query.get("resourceVersion") or ["0"])[0] or 0))
        api_version, kind, _ = RESOURCES[plural]
        with self._lock:
            items = [dict(o) for o in self._objects[plural]]
            version = self._version
        return self._json(h, {"apiVersion": api_version, "kind": kind + "List",
                              "metadata": {"resourceVersion": str(version)}, "items": items})

    def _json(self, h, doc, code=200):
        body = json.dumps(doc).encode()
        h.send_response(code)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    def _watch(self, h, plural, since):
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        sent = since
        try:
            while True:
                with self._lock:
                    pending = [(v, e) for v, e in self._events[plural] if v > sent]
                    if not pending and not self._closed:
                        self._lock.wait(0.2)  # poll so that a watch of a closed server ends
                        continue
                    if self._closed and not pending:
                        break
                for v, e in pending:
                    line = (json.dumps(e) + "\n").encode()
                    h.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
                    h.wfile.flush()
                    sent = v
        except (BrokenPipeError, ConnectionResetError):
            return
        h.wfile.write(b"0\r\n\r\n")
