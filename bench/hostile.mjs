// The client of bench/hostile.sh: starts one sqlmcp server, sends it run_query calls and reports, as one JSON
// line, what came back and the server's peak RSS (VmHWM in /proc/<pid>/status) once the calls are done.
// No dependencies: JSON-RPC over stdio by hand, or plain fetch over streamable HTTP.
//   node bench/hostile.mjs BIN CONC SQL [SERVE-ARGS...]
// CONC = 0: one call over stdio; CONC > 0: CONC calls at once over HTTP (serve --http 127.0.0.1:0).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const [bin, concArg, sql, ...serveArgs] = process.argv.slice(2);
const conc = Number(concArg);
const call = (id) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'run_query', arguments: { sql } } });
const init = {
  jsonrpc: '2.0', id: 0, method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hostile', version: '0' } },
};

function peakKB(pid) {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/);
  return m ? Number(m[1]) : -1;
}

// summary keeps what a reader needs of one result: error or not, truncated, and a short head of the text.
function summary(msg) {
  if (msg.error) return { protocolError: msg.error.message };
  const r = msg.result;
  const text = (r.content || []).map((c) => c.text || '').join('');
  const s = r.structuredContent || {};
  return { isError: !!r.isError, rows: s.row_count, truncatedBy: s.truncated_by || '', text: text.slice(0, 160) };
}

async function stdio() {
  const child = spawn(bin, ['serve', ...serveArgs], { stdio: ['pipe', 'pipe', 'ignore'] });
  const lines = createInterface({ input: child.stdout });
  const waiting = new Map();
  lines.on('line', (l) => {
    const m = JSON.parse(l);
    if (waiting.has(m.id)) waiting.get(m.id)(m);
  });
  let died = null;
  child.on('exit', (code, sig) => {
    died = `sqlmcp exited (${code ?? sig})`;
    for (const w of waiting.values()) w({ error: { message: died } });
  });
  const send = (m) => new Promise((res) => {
    waiting.set(m.id, res);
    child.stdin.write(JSON.stringify(m) + '\n');
  });
  await send(init);
  child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  const t0 = Date.now();
  const res = await send(call(1));
  const ms = Date.now() - t0;
  const out = { ms, peakKB: died ? -1 : peakKB(child.pid), results: [summary(res)] };
  child.kill();
  return out;
}

async function http() {
  const child = spawn(bin, ['serve', ...serveArgs, '--http', '127.0.0.1:0', '--log-level', 'info'],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise((res, rej) => {
    const lines = createInterface({ input: child.stderr });
    lines.on('line', (l) => {
      const m = l.match(/"event":"start".*"url":"([^"]+)"/);
      if (m) res(m[1]);
    });
    child.on('exit', (code) => rej(new Error(`sqlmcp exited (${code}) before it listened`)));
  });
  const post = async (m) => {
    const r = await fetch(url, {
      method: 'POST', body: JSON.stringify(m),
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    });
    const body = await r.text();
    // A JSON answer, or one SSE event whose data line is the answer.
    const data = body.startsWith('{') ? body : body.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5)).join('');
    try { return JSON.parse(data); } catch { return { error: { message: `HTTP ${r.status}: ${body.slice(0, 200)}` } }; }
  };
  await post(init);
  const t0 = Date.now();
  const all = await Promise.all(Array.from({ length: conc }, (_, i) => post(call(i + 1))));
  const ms = Date.now() - t0;
  const out = { ms, peakKB: child.exitCode === null ? peakKB(child.pid) : -1, results: all.map(summary) };
  child.kill();
  return out;
}

const out = await (conc > 0 ? http() : stdio());
console.log(JSON.stringify(out));
process.exit(0);
