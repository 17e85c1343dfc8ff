"""The client side of tests/node-plugin/kubelet's kubelet-dra-harness: kubelet's plugin manager and
DRA manager for one node, driven by its line protocol (one command on stdin, one JSON answer per
line on stdout; docs/testing.md, "The node plugin against kubelet's code"). Used by
tests/node-plugin/run and tests/deploy/run.
"""
import json
import queue
import subprocess
import threading


class KubeletHarness:
    """One kubelet's DRA side for `node`, against the API server of `kubeconfig`. A fresh
    `state_dir` is a kubelet without a checkpoint. Raises RuntimeError when it does not start."""

    def __init__(self, binary, log_path, kubeconfig, node, registration_dir, state_dir, cdi_dir, verbosity=4):
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen([binary, "--kubeconfig", kubeconfig, "--node", node,
                                      "--registration-dir", registration_dir, "--state-dir", state_dir,
                                      "--cdi-dir", cdi_dir, "-v", str(verbosity)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True,
                                     start_new_session=True)
        self.answers = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        first = self._next(60)
        if not first.get("started"):
            self.stop()
            raise RuntimeError(f"the kubelet harness did not start ({log_path}): {first}")

    def _read(self):
        for line in self.proc.stdout:
            self.answers.put(json.loads(line))
        self.answers.put({"ok": False, "error": "the harness exited"})

    def _next(self, timeout):
        try:
            return self.answers.get(timeout=timeout)
        except queue.Empty:
            return {"ok": False, "error": f"no answer within {timeout} s"}

    def ask(self, command, timeout=120):
        """Sends one command (`wait-registered DRIVER SECONDS`, `prepare NS/POD`, ...); its answer."""
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self._next(timeout)

    def stop(self):
        if self.proc.poll() is None:
            try:
                self.ask("quit", timeout=20)
            except OSError:
                pass
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
