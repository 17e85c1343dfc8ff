"""draforge.kube: the kubeconfig rules, one-shot loading and the live source (list + watch) against
a scripted API server (fake_apiserver.py) serving examples/scenarios/demo.yaml over plain HTTP."""
import json
import queue

import pytest
import yaml

import draforge
from fake_apiserver import RESOURCES, FakeApiServer

KINDS = sorted({kind for _, kind, _ in RESOURCES.values()})


@pytest.fixture
def demo_objects(root):
    docs = yaml.safe_load_all((root / "examples" / "scenarios" / "demo.yaml").read_text())
    return [d for d in docs if d and d.get("kind") in KINDS]


@pytest.fixture
def server(demo_objects):
    s = FakeApiServer(json.loads(json.dumps(demo_objects)))
    yield s
    s.close()


@pytest.fixture
def kubeconfig(server, tmp_path):
    return server.kubeconfig(tmp_path / "config")


def counts(cluster):
    snap = cluster.snapshot()
    return {kind: snap.count(kind) for kind in KINDS}


def test_resolve_config_follows_client_gos_order(kubeconfig, tmp_path, server):
    explicit = draforge.kube.resolve_config(kubeconfig, environ={})
    assert (explicit["source"], explicit["server"], explicit["context"], explicit["namespace"]) == (
        "kubeconfig", server.url, "fake", "team-a")
    assert draforge.kube.resolve_config(environ={"KUBECONFIG": str(kubeconfig)})["source"] == "KUBECONFIG"
    home = tmp_path / "home"
    (home / ".kube").mkdir(parents=True)
    (home / ".kube" / "config").write_text(kubeconfig.read_text())
    assert draforge.kube.resolve_config(environ={"HOME": str(home)})["source"] == "home"
    # $KUBECONFIG wins over ~/.kube/config; nothing at all is a result, not an error.
    both = {"HOME": str(home), "KUBECONFIG": str(kubeconfig)}
    assert draforge.kube.resolve_config(environ=both)["source"] == "KUBECONFIG"
    assert draforge.kube.resolve_config(environ={})["source"] == "none"
    with pytest.raises(draforge.NotFoundError):
        draforge.kube.resolve_config(tmp_path / "missing", environ={})


def test_client_reports_its_configuration(kubeconfig, server):
    client = draforge.kube.Client(kubeconfig, environ={})
    assert (client.server, client.context, client.namespace) == (server.url, "fake", "team-a")


def test_from_kubeconfig_loads_what_the_server_serves(kubeconfig, root):
    live = draforge.Cluster.from_kubeconfig(kubeconfig, environ={})
    files = draforge.Cluster.from_files(root / "examples" / "scenarios" / "demo.yaml")
    assert counts(live) == counts(files) and counts(live)["ResourceSlice"] == 6
    assert live.get("ResourceClaim", "mig-half", "team-a")["status"]["allocation"] == \
        files.get("ResourceClaim", "mig-half", "team-a")["status"]["allocation"]


def test_watch_keeps_the_cluster_current(kubeconfig, server, root):
    client = draforge.kube.Client(kubeconfig, environ={})
    cluster = draforge.Cluster()
    changed = queue.Queue()
    with draforge.kube.watch(cluster, client, on_change=changed.put) as source:
        assert source.wait_synced(60)
        assert source.synced and source.error is None and source.dra_version == "v1"
        assert counts(cluster) == counts(draforge.Cluster.from_files(root / "examples" / "scenarios" / "demo.yaml"))
        server.add({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "added.example.com"}})
        wait_for(cluster, "added.example.com", changed)
    # Stopped (the threads are joined, so the counters are final); stopping again is harmless.
    source.stop()
    stats = source.stats()
    assert stats["lists"] >= len(KINDS), stats
    assert stats["events"] >= 1, stats


def test_on_change_exceptions_do_not_stop_the_source(kubeconfig, server, monkeypatch):
    cluster = draforge.Cluster()
    seen = queue.Queue()
    unraisable = []
    monkeypatch.setattr("sys.unraisablehook", unraisable.append)

    def broken(kind):
        seen.put(kind)
        raise RuntimeError("a bug in the caller's callback")

    with draforge.kube.watch(cluster, draforge.kube.Client(kubeconfig, environ={}), on_change=broken) as source:
        assert source.wait_synced(60)
        server.add({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "one"}})
        server.add({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "two"}})
        # The first callback raised; the source went on and stored the second class too.
        wait_for(cluster, "one", seen)
        wait_for(cluster, "two", seen)
        assert source.error is None
    # The callback's exceptions went to sys.unraisablehook, not into the source.
    assert unraisable and all(isinstance(u.exc_value, RuntimeError) for u in unraisable)


def has_class(cluster, name):
    try:
        cluster.get("DeviceClass", name)
        return True
    except KeyError:
        return False


def wait_for(cluster, name, notifications):
    """Returns once DeviceClass `name` is stored, woken by each on_change (queue.Empty after a minute
    without one fails the test)."""
    while not has_class(cluster, name):
        notifications.get(timeout=60)


def test_api_errors_carry_status_and_reason(kubeconfig):
    # The scripted server does not serve /version: a 404 Status.
    with pytest.raises(draforge.ApiError) as info:
        draforge.kube.Client(kubeconfig, environ={}).server_version()
    assert (info.value.status_code, info.value.reason) == (404, "NotFound")


def test_unreachable_server_is_unavailable(tmp_path):
    config = tmp_path / "config"
    config.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "c",
        "clusters": [{"name": "c", "cluster": {"server": "http://127.0.0.1:1"}}],
        "users": [{"name": "u", "user": {}}], "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}]}))
    with pytest.raises(draforge.UnavailableError) as info:
        draforge.Cluster.from_kubeconfig(config, environ={})
    assert isinstance(info.value, ConnectionError)
    with pytest.raises(draforge.UnavailableError):
        draforge.kube.watch(draforge.Cluster(), draforge.kube.Client(config, environ={}))
