/**
 * The live web terminal page: served by the package, no CDN. xterm.js and
 * its fit addon are read from the installed `@xterm/xterm` and
 * `@xterm/addon-fit` packages.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

const ASSETS: Record<string, { module: string; type: string }> = {
  "xterm.js": { module: "@xterm/xterm/lib/xterm.js", type: "text/javascript; charset=utf-8" },
  "xterm.css": { module: "@xterm/xterm/css/xterm.css", type: "text/css; charset=utf-8" },
  "addon-fit.js": { module: "@xterm/addon-fit/lib/addon-fit.js", type: "text/javascript; charset=utf-8" },
};
const cache = new Map<string, string>();

/** A static file of the page, or undefined. */
export async function pageAsset(file: string): Promise<{ body: string; type: string } | undefined> {
  if (file === "app.js") return { body: APP_JS, type: "text/javascript; charset=utf-8" };
  const asset = ASSETS[file];
  if (asset === undefined) return undefined;
  let body = cache.get(file);
  if (body === undefined) {
    body = await readFile(require.resolve(asset.module), "utf8");
    cache.set(file, body);
  }
  return { body, type: asset.type };
}

/** The page. */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agent-tty</title>
<link rel="stylesheet" href="/assets/xterm.css">
<style>
  :root { color-scheme: dark; --bg:#0f1115; --panel:#171a21; --line:#2a2f3a; --fg:#d8dee9; --dim:#8a93a6; --ok:#4caf50; --bad:#e5534b; --warn:#d29922; --accent:#58a6ff; }
  * { box-sizing: border-box; }
  body { margin:0; font:14px/1.4 system-ui, sans-serif; background:var(--bg); color:var(--fg); display:grid; grid-template-columns: 300px 1fr; height:100vh; }
  aside { border-right:1px solid var(--line); overflow:auto; background:var(--panel); }
  aside h1 { font-size:16px; margin:0; padding:12px 14px; border-bottom:1px solid var(--line); }
  .session { padding:10px 14px; border-bottom:1px solid var(--line); cursor:pointer; }
  .session:hover, .session.selected { background:#1f2430; }
  .session .name { font-weight:600; display:flex; align-items:center; gap:6px; }
  .session .meta, .session .desc, .session .running { color:var(--dim); font-size:12px; overflow:hidden; text-overflow:ellipsis; white-space:nowrap; }
  .badge { font-size:11px; padding:1px 6px; border-radius:8px; background:#2d333b; color:var(--fg); }
  .badge.busy { background:#1f6feb33; color:var(--accent); }
  .badge.human { background:#d2992233; color:var(--warn); }
  .badge.recover { background:#e5534b33; color:var(--bad); }
  .spinner { width:10px; height:10px; border:2px solid var(--accent); border-right-color:transparent; border-radius:50%; animation: spin .8s linear infinite; display:inline-block; }
  @keyframes spin { to { transform: rotate(360deg); } }
  main { display:grid; grid-template-rows: auto minmax(0, 1fr) 190px; min-width:0; height:100vh; overflow:hidden; }
  header { display:flex; align-items:center; gap:10px; padding:8px 14px; border-bottom:1px solid var(--line); }
  header .title { font-weight:600; }
  header .spacer { flex:1; }
  button { background:#238636; color:white; border:0; padding:6px 12px; border-radius:6px; cursor:pointer; font-weight:600; }
  button.give { background:var(--warn); color:#111; }
  button:disabled { opacity:.4; cursor:default; }
  #term { padding:6px; overflow:auto; background:#000; min-height:0; }
  #cells { border-top:1px solid var(--line); overflow:auto; }
  table { width:100%; border-collapse:collapse; font-size:12px; }
  th, td { text-align:left; padding:4px 10px; border-bottom:1px solid var(--line); white-space:nowrap; }
  td.code { font-family:ui-monospace, monospace; max-width:500px; overflow:hidden; text-overflow:ellipsis; }
  .exit0 { color:var(--ok); } .exitN { color:var(--bad); } .dim { color:var(--dim); }
  #empty { padding:40px; color:var(--dim); }
</style>
</head>
<body>
<aside><h1>agent-tty <span class="dim" id="count"></span></h1><div id="sessions"></div></aside>
<main>
  <header>
    <span class="title" id="title">no session selected</span>
    <span class="badge" id="state"></span>
    <span id="busy"></span>
    <span class="dim" id="holder"></span>
    <span class="spacer"></span>
    <button id="take" disabled>Take over</button>
    <button id="give" class="give" hidden>Give back</button>
  </header>
  <div id="term"><div id="empty">Pick a session on the left to watch it live.</div></div>
  <div id="cells"><table><thead><tr><th>cell</th><th>status</th><th>exit</th><th>ms</th><th>code</th></tr></thead><tbody id="cellrows"></tbody></table></div>
</main>
<script src="/assets/xterm.js"></script>
<script src="/assets/addon-fit.js"></script>
<script src="/assets/app.js"></script>
</body>
</html>
`;

/** The page's script (plain browser JavaScript). */
const APP_JS = String.raw`"use strict";
const $ = (id) => document.getElementById(id);
let selected = new URLSearchParams(location.hash.slice(1)).get("s");
let socket = null, term = null, fit = null, holding = false, sessions = [];

function esc(text) { return String(text == null ? "" : text).replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";"); }

async function api(path) {
  const res = await fetch(path, { credentials: "same-origin", cache: "no-store" });
  if (!res.ok) throw new Error(path + ": " + res.status);
  return res.json();
}

function renderSessions() {
  $("count").textContent = "(" + sessions.length + ")";
  $("sessions").innerHTML = sessions.map((s) => {
    const busy = s.activity === "running" || s.activity === "awaiting_input";
    return '<div class="session' + (s.name === selected ? " selected" : "") + '" data-name="' + esc(s.name) + '">' +
      '<div class="name">' + (busy ? '<span class="spinner" title="busy"></span>' : "") + esc(s.name) +
      ' <span class="badge' + (busy ? " busy" : "") + '">' + esc(s.activity) + "</span>" +
      (s.control ? ' <span class="badge human">person</span>' : "") +
      (s.needsRecovery ? ' <span class="badge recover">needs recovery</span>' : "") + "</div>" +
      (s.label ? '<div class="meta">' + esc(s.label) + "</div>" : "") +
      (s.description ? '<div class="desc">' + esc(s.description) + "</div>" : "") +
      '<div class="meta">' + esc(s.command) + " · " + esc(s.state) + "</div>" +
      (s.activeCell ? '<div class="running">▶ ' + esc(s.activeCell.code) + "</div>" : "") +
      "</div>";
  }).join("") || '<div class="session dim">no sessions</div>';
  for (const el of document.querySelectorAll(".session[data-name]")) el.onclick = () => openSession(el.dataset.name);
}

function renderHeader() {
  const s = sessions.find((x) => x.name === selected);
  $("title").textContent = selected || "no session selected";
  $("state").textContent = s ? (s.state === s.activity ? s.state : s.state + " · " + s.activity) + (s.needsRecovery ? " · needs recovery" : "") : "";
  $("busy").innerHTML = s && (s.activity === "running" || s.activity === "awaiting_input") ? '<span class="spinner" title="busy"></span>' : "";
  $("holder").textContent = s && s.control ? (holding ? "you hold this terminal" : "held by a person (" + s.control.via + ")") : "";
  $("take").disabled = !s || holding || !!(s && s.control);
  $("take").hidden = holding;
  $("give").hidden = !holding;
  if (term && s && (term.cols !== s.cols || term.rows !== s.rows) && !holding) term.resize(s.cols, s.rows);
}

async function renderCells() {
  if (!selected) return;
  try {
    const cells = await api("/api/sessions/" + encodeURIComponent(selected) + "/cells");
    $("cellrows").innerHTML = cells.slice().reverse().map((c) =>
      "<tr><td>" + esc(c.cellId) + "</td><td>" + (c.status === "running" ? '<span class="spinner"></span> ' : "") + esc(c.status) + "</td>" +
      '<td class="' + (c.exitCode === 0 ? "exit0" : c.exitCode == null ? "dim" : "exitN") + '">' + (c.exitCode == null ? "–" : esc(c.exitCode)) + "</td>" +
      "<td>" + (c.durationMs == null ? "" : Math.round(c.durationMs)) + '</td><td class="code">' + esc(c.code) + "</td></tr>").join("");
  } catch { $("cellrows").innerHTML = ""; }
}

async function refresh() {
  try { sessions = await api("/api/sessions"); } catch { sessions = []; }
  renderSessions(); renderHeader(); renderCells();
}

function openSession(name) {
  if (socket) { socket.onclose = null; socket.close(); socket = null; }
  selected = name; holding = false;
  location.hash = "s=" + encodeURIComponent(name);
  $("term").innerHTML = "";
  term = new Terminal({ convertEol: false, cursorBlink: true, scrollback: 5000, fontSize: 13, theme: { background: "#000000" } });
  fit = new FitAddon.FitAddon();
  term.loadAddon(fit);
  term.open($("term"));
  term.onData((data) => { if (holding && socket) socket.send(JSON.stringify({ type: "input", data })); });
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(proto + "//" + location.host + "/api/sessions/" + encodeURIComponent(name) + "/terminal");
  socket.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.type === "hello" || m.type === "reset") { term.resize(m.cols, m.rows); term.reset(); term.write(m.data); }
    else if (m.type === "data") term.write(m.data);
    else if (m.type === "resize") term.resize(m.cols, m.rows);
    else if (m.type === "control") { holding = m.you; document.body.dataset.holding = String(holding); renderHeader(); if (holding) sizeToWindow(); }
    else if (m.type === "cell") renderCells();
    else if (m.type === "exit") term.write("\r\n[session ended" + (m.exitCode == null ? "" : ", exit " + m.exitCode) + "]\r\n");
  };
  socket.onclose = () => { holding = false; renderHeader(); };
  renderSessions(); renderHeader(); renderCells();
}

function sizeToWindow() {
  const dims = fit && fit.proposeDimensions();
  if (dims && dims.cols && dims.rows) { term.resize(dims.cols, dims.rows); socket.send(JSON.stringify({ type: "resize", cols: dims.cols, rows: dims.rows })); }
}

$("take").onclick = () => { if (socket) socket.send(JSON.stringify({ type: "take" })); };
$("give").onclick = () => { if (socket) socket.send(JSON.stringify({ type: "give" })); term && term.blur(); };
window.addEventListener("resize", () => { if (holding) sizeToWindow(); });
refresh();
setInterval(refresh, 1000);
if (selected) openSession(selected);
`;
