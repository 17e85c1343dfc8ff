// The draforge CLI as the browser tests' second judge: what the dashboard shows for packages and
// pool availability must be what `draforge package capacity` and `draforge get pools
// --availability` print for the same objects.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * Rows of a table the CLI prints (left-aligned columns, a header of upper-case names that may hold
 * single spaces, "LIMITED BY"), as objects keyed by header name. Cells are cut at the header's
 * column starts, so a value with spaces ("no node fits another") stays whole.
 */
export function parseTable(text) {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  if (lines.length === 0) return [];
  const cols = [...lines[0].matchAll(/\S+(?: \S+)*/g)].map((m) => ({ name: m[0], start: m.index }));
  return lines.slice(1).map((l) => Object.fromEntries(cols.map((c, i) => [c.name, l.slice(c.start, i + 1 < cols.length ? cols[i + 1].start : undefined).trim()])));
}

/** `-f` arguments for what a `--demo --watch-dir DIR` server serves: the scenario, then DIR's files. */
export function servedInputs(repo, watchDir) {
  const files = readdirSync(watchDir)
    .filter((f) => /\.(ya?ml|json)$/.test(f) && !f.startsWith('.'))
    .sort()
    .flatMap((f) => ['-f', path.join(watchDir, f)]);
  return ['-f', path.join(repo, 'examples/scenarios/demo.yaml'), ...files];
}

function run(cli, args) {
  return execFileSync(cli, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
}

/**
 * `draforge package capacity` with the demo's catalog: {header, totals, nodes}, the line naming
 * the namespace and its two tables (one row per package; one per package and node).
 */
export function packageCapacity(cli, repo, inputs, extra = []) {
  const out = run(cli, ['package', 'capacity', '--catalog', path.join(repo, 'examples/packages/catalog.yaml'), ...inputs, ...extra]);
  const [first, second = ''] = out.split('\n\n');
  const [header, ...totals] = first.split('\n');
  return { header, totals: parseTable(totals.join('\n')), nodes: parseTable(second) };
}

/** `draforge package inventory -o json`. */
export function packageInventory(cli, inputs) {
  return JSON.parse(run(cli, ['package', 'inventory', ...inputs, '-o', 'json']));
}

/** `draforge get pools --availability --driver D [--partition-attribute A]`, its table's rows. */
export function poolAvailability(cli, inputs, driver, partitionAttribute) {
  const extra = partitionAttribute ? ['--partition-attribute', partitionAttribute] : [];
  return parseTable(run(cli, ['get', 'pools', '--availability', '--driver', driver, ...extra, ...inputs]));
}
