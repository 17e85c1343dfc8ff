// Starts and stops a real draforge-server for the browser tests.
import { spawn } from 'node:child_process';
import { once } from 'node:events';

/**
 * A random loopback port below Linux's ephemeral range (32768+), where the kernel never puts the
 * local end of an outgoing connection: a server that must come back on the same port after a
 * restart cannot lose it to some client's connection meanwhile (a port-0 pick can).
 */
export function stablePort() {
  return 20000 + Math.floor(Math.random() * 12768);
}

/**
 * Starts `binary` with `args` (plus --port 0 unless a port is given) and resolves once it printed
 * its "listening on" line and (unless waitReady is false) /readyz answers 200. Rejects with the server's stderr when it exits
 * or does not become ready within `timeoutMs`.
 * `port: 'stable'` takes a stablePort(), and another one when that port is taken (up to 5 times).
 * A given port that is taken is tried again for up to 10 s (`bindAttempts` tries, 500 ms apart):
 * the server being replaced may still hold it for a moment.
 */
export async function startServer(binary, args, { port = 0, timeoutMs = 30000, waitReady = true, bindAttempts } = {}) {
  const attempts = bindAttempts ?? (port === 'stable' ? 5 : port ? 20 : 1);
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(binary, args, { port: port === 'stable' ? stablePort() : port, timeoutMs, waitReady });
    } catch (e) {
      if (attempt >= attempts || !/cannot listen on/.test(String(e.message))) throw e;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

async function startOnce(binary, args, { port, timeoutMs, waitReady }) {
  const child = spawn(binary, [...args, '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (d) => {
    stderr += d;
    if (stderr.length > 20000) stderr = stderr.slice(-20000);
  });
  const url = await new Promise((resolve, reject) => {
    // A server that gave no address in time is stopped, not left running after the test.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`draforge-server printed no address within ${timeoutMs} ms; stderr:\n${stderr}`));
    }, timeoutMs);
    child.stdout.on('data', (d) => {
      stdout += d;
      const m = /listening on (http:\/\/\S+)/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(m[1].replace(/\/$/, ''));
      }
    });
    // 'close', not 'exit': by then stderr is read to the end, so the message (and the bind-clash
    // retry above, which looks for it) sees why the server stopped.
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`draforge-server exited with ${code} before listening; stderr:\n${stderr}`));
    });
  });
  const deadline = Date.now() + timeoutMs;
  for (; waitReady; ) {
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) break;
    } catch {
      // Not accepting yet.
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`draforge-server at ${url} not ready within ${timeoutMs} ms; stderr:\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port: Number(new URL(url).port),
    child,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await once(child, 'exit');
      clearTimeout(timer);
    },
  };
}

export async function api(url, path) {
  const res = await fetch(`${url}/api/v1/${path}`);
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}
