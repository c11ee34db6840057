#!/usr/bin/env node
// load.mjs: C concurrent MCP clients, each its own streamable HTTP client of the official TypeScript SDK
// (@modelcontextprotocol/sdk, pinned in bench/package.json), calling run_query in a loop for T seconds:
// SELECT 1 and a point lookup, in turn. bench/load.sh starts the server and runs this; by hand:
//   node bench/load.mjs --url http://127.0.0.1:8080/mcp --pid PID -c 8 -t 20 --point 'SELECT ... {i} ...'
// The bearer token, if the server wants one, comes from SQLMCP_LOAD_TOKEN.
// Prints one JSON line: calls, calls/s, p50/p99 (all calls, and per query), errors (thrown or isError,
// with the first message), the server's VmRSS (KiB) before the clients connect, after the warm-up, at the
// end, and the most seen by a sampler every 250 ms, its VmHWM, and server and client CPU per call.
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';

const { values: o } = parseArgs({
  options: {
    url: { type: 'string' },
    pid: { type: 'string' },                       // the server's, for RSS and CPU
    concurrency: { type: 'string', short: 'c', default: '8' },
    seconds: { type: 'string', short: 't', default: '20' },
    warmup: { type: 'string', default: '2' },      // seconds of calls before the measured ones
    trivial: { type: 'string', default: 'SELECT 1' },
    point: { type: 'string', default: 'SELECT * FROM students WHERE student_id = 100001 + ({i} * 7919) % 5000' }, // the demo's
    tool: { type: 'string', default: 'run_query' },
    label: { type: 'string', default: 'sqlmcp' },
  },
});
if (!o.url) { console.error('need --url'); process.exit(2); }
const C = +o.concurrency, T = +o.seconds * 1000, WARM = +o.warmup * 1000;
const token = process.env.SQLMCP_LOAD_TOKEN;
const pid = o.pid ? +o.pid : null;

function server() { // VmRSS, VmHWM (KiB) and CPU (ms) of the server process
  if (!pid) return {};
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const st = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { rss: +s.match(/VmRSS:\s+(\d+)/)[1], hwm: +s.match(/VmHWM:\s+(\d+)/)[1], cpu: (+st[11] + +st[12]) * 10 }; // 100 Hz ticks
}
function stats(ms) {
  const s = Float64Array.from(ms).sort();
  const q = (p) => s.length ? Math.round(s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] * 100) / 100 : null;
  return { n: s.length, p50_ms: q(50), p99_ms: q(99), max_ms: s.length ? Math.round(s[s.length - 1] * 100) / 100 : null };
}

const s0 = server();
const clients = await Promise.all(Array.from({ length: C }, async () => {
  const client = new Client({ name: 'sqlmcp-load', version: '0.1.0' }, { capabilities: {} });
  const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : undefined;
  await client.connect(new StreamableHTTPClientTransport(new URL(o.url), { requestInit }));
  return client;
}));

const queries = [['trivial', o.trivial], ['point', o.point]];
const lat = { trivial: [], point: [] };
let errors = 0, firstError = null, i = 0, measuring = false;
async function worker(client, until) {
  while (performance.now() < until) {
    const k = i++, [name, sql] = queries[k % 2];
    const t = performance.now();
    try {
      const res = await client.request({ method: 'tools/call', params: { name: o.tool, arguments: { sql: sql.replaceAll('{i}', String(k)) } } },
        CallToolResultSchema, { timeout: 60000 });
      if (res.isError) { errors++; firstError ??= res.content?.[0]?.text ?? 'isError'; }
    } catch (e) { errors++; firstError ??= String(e.message ?? e); }
    if (measuring) lat[name].push(performance.now() - t);
  }
}

await Promise.all(clients.map((c) => worker(c, performance.now() + WARM)));
const warmErrors = errors; errors = 0;
const s1 = server(), cpu1 = process.cpuUsage();
let rssMax = s1.rss ?? 0;
const sampler = setInterval(() => { try { rssMax = Math.max(rssMax, server().rss ?? 0); } catch { /* gone */ } }, 250);
measuring = true;
const t0 = performance.now();
await Promise.all(clients.map((c) => worker(c, t0 + T)));
const wall = performance.now() - t0;
measuring = false;
clearInterval(sampler);
const s2 = server(), cpu2 = process.cpuUsage(cpu1);
rssMax = Math.max(rssMax, s2.rss ?? 0);
await Promise.all(clients.map((c) => c.close().catch(() => {})));

const all = [...lat.trivial, ...lat.point], calls = all.length;
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
console.log(JSON.stringify({
  label: o.label, url: o.url, concurrency: C, seconds: round(wall / 1000, 2), calls, calls_per_s: round(calls / (wall / 1000)),
  ...stats(all), trivial: stats(lat.trivial), point: stats(lat.point),
  errors, warmup_errors: warmErrors, first_error: firstError,
  rss_kb_start: s0.rss ?? null, rss_kb_warm: s1.rss ?? null, rss_kb_end: s2.rss ?? null, rss_kb_max: pid ? rssMax : null, hwm_kb: s2.hwm ?? null,
  server_cpu_ms_per_call: pid ? round((s2.cpu - s1.cpu) / calls, 3) : null,
  client_cpu_ms_per_call: round((cpu2.user + cpu2.system) / 1000 / calls, 3),
  point_sql: o.point, node: process.version, loadavg: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
}));
process.exit(errors || warmErrors ? 1 : 0);
