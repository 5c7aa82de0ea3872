// The replay viewer: step, play and scrub through every decision of one game record.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("ffo-data").textContent);
  const units = D.units, names = D.hex_names, frames = D.frames;
  const N = frames.length;  // positions 0..N: 0 is the initial position, k follows agent decision k
  const KEY = 32;  // a full position every KEY frames, so that a scrub applies at most KEY-1 deltas
  const board = FFO.initBoard(document.getElementById("board"), D.geo, D.map);
  const keyframes = [];
  let pos = FFO.clone(D.first);
  keyframes.push(FFO.clone(pos));
  for (let k = 1; k <= N; k++) {
    FFO.applyDelta(pos, frames[k - 1]);
    if (k % KEY === 0) keyframes.push(FFO.clone(pos));
  }
  const finalPos = pos;
  function position(k) {
    const p = FFO.clone(keyframes[Math.floor(k / KEY)]);
    for (let j = Math.floor(k / KEY) * KEY + 1; j <= k; j++) FFO.applyDelta(p, frames[j - 1]);
    return p;
  }
  const $ = (id) => document.getElementById(id);
  const slider = $("slider");
  slider.max = N;
  let cur = 0, timer = null;

  // VP timeline: cumulative VP by category per position, drawn once; a cursor follows the position.
  const kinds = [...new Set(D.vp_log.map((v) => v[2]))].sort();
  const COLORS = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"];
  function drawChart() {
    const svg = $("chart"), W = 460, H = 170, L = 34, B = 18;
    svg.innerHTML = "";
    const series = {}; kinds.forEach((k) => { series[k] = [0]; });
    const total = [D.first.vp];
    let nvp = D.first.n_vp, p = 0;
    const acc = {}; kinds.forEach((k) => { acc[k] = 0; });
    for (let i = 0; i < D.first.n_vp; i++) acc[D.vp_log[i][2]] += D.vp_log[i][3];
    kinds.forEach((k) => { series[k][0] = acc[k]; });
    for (let k = 1; k <= N; k++) {
      const f = frames[k - 1];
      for (; nvp < f.n_vp; nvp++) acc[D.vp_log[nvp][2]] += D.vp_log[nvp][3];
      kinds.forEach((kk) => series[kk].push(acc[kk]));
      total.push(f.vp);
      p = k;
    }
    const all = total.concat(...kinds.map((k) => series[k]));
    const lo = Math.min(0, ...all), hi = Math.max(1, ...all);
    const X = (k) => L + (W - L - 8) * k / Math.max(1, N), Y = (v) => 8 + (H - 8 - B) * (hi - v) / (hi - lo);
    const line = (vals, col, w, cls) => FFO.el("polyline", { points: vals.map((v, k) => X(k).toFixed(1) + "," + Y(v).toFixed(1)).join(" "),
      fill: "none", stroke: col, "stroke-width": w, class: cls || "" }, svg);
    FFO.el("line", { x1: L, y1: Y(0), x2: W - 8, y2: Y(0), stroke: "#999" }, svg);
    // game-turn ticks
    let lastTurn = D.first.turn;
    for (let k = 1; k <= N; k++) {
      if (frames[k - 1].turn !== lastTurn) {
        lastTurn = frames[k - 1].turn;
        FFO.el("line", { x1: X(k), y1: H - B, x2: X(k), y2: H - B + 4, stroke: "#666" }, svg);
        if (lastTurn % 2 === 1) { const t = FFO.el("text", { x: X(k), y: H - 3, "font-size": 9, "text-anchor": "middle" }, svg); t.textContent = "GT" + lastTurn; }
      }
    }
    for (const v of [lo, hi]) { const t = FFO.el("text", { x: L - 4, y: Y(v) + 3, "font-size": 9, "text-anchor": "end" }, svg); t.textContent = v; }
    kinds.forEach((k, i) => line(series[k], COLORS[i % COLORS.length], 1.5));
    line(total, "#000", 2.2, "total");
    FFO.el("line", { id: "cursor", x1: X(0), y1: 4, x2: X(0), y2: H - B, stroke: "#e00", "stroke-width": 1.5 }, svg);
    const leg = $("legend");
    leg.innerHTML = `<span><i style="background:#000"></i>total</span>` +
      kinds.map((k, i) => `<span><i style="background:${COLORS[i % COLORS.length]}"></i>${FFO.esc(k)} ${acc[k] >= 0 ? "+" : ""}${acc[k]}</span>`).join("");
    svg.addEventListener("click", (ev) => {
      const r = svg.getBoundingClientRect();
      const x = (ev.clientX - r.left) * W / r.width;
      go(Math.round((x - L) / (W - L - 8) * N));
    });
    return X;
  }
  const chartX = drawChart();

  function hexesIn(text) {
    const out = [];
    for (const m of String(text).matchAll(/\b(\d{4})\b/g)) { const h = names.indexOf(m[1]); if (h >= 0) out.push(h); }
    return out;
  }

  function render(k) {
    const p = position(k);
    const f = k > 0 ? frames[k - 1] : D.first;
    const prev = k > 0 ? (k > 1 ? frames[k - 2] : D.first) : null;
    const [d0, d1] = f.d;
    const hl = [];
    for (let i = d0; i < d1; i++) hl.push(...hexesIn(D.decisions[i][2]));
    FFO.draw(board, units, p, { highlight: hl, target: f.battle ? f.battle.hex : null, animate: timer !== null });
    $("step").textContent = `${k} / ${N}`;
    $("turn").textContent = p.turn;
    $("phase").textContent = p.phase.replace(/_/g, " ").toLowerCase();
    $("who").textContent = p.terminal ? "game over" : `${p.player} to decide: ${p.decision.replace(/_/g, " ").toLowerCase()}`;
    $("vp").textContent = p.vp;
    $("vp").dataset.vp = p.vp;
    document.querySelectorAll("#turns span").forEach((e) => e.classList.toggle("now", Number(e.dataset.t) === p.turn));
    document.querySelectorAll("#phases span").forEach((e) => e.classList.toggle("now", e.dataset.p === p.phase));
    // what was decided to reach this position: the agent decision and the automatic ones after it
    let html = "";
    if (k === 0) html = `<div class="auto">initial position (${d1} setup decisions before the first agent decision)</div>`;
    for (let i = k === 0 ? d1 : d0; i < d1; i++) {
      const r = D.decisions[i];
      html += `<div class="${r[1] ? "auto" : "agent"} ${r[0] ? "german" : "french"}">#${i} ${r[0] ? "German" : "French"}${r[1] ? " (auto)" : ""}: ${FFO.esc(r[2])}</div>`;
    }
    $("decided").innerHTML = html || "-";
    const dice = D.dice.slice(prev ? prev.n_dice : 0, f.n_dice);
    $("dice").innerHTML = dice.map((x) => `<div><b class="die">${x[0]}</b>${x[1] !== 6 ? " of " + x[1] : ""} - ${FFO.esc(x[2])}</div>`).join("") || "-";
    const vps = D.vp_log.slice(prev ? prev.n_vp : 0, f.n_vp);
    $("vpev").innerHTML = vps.map((v) => `<div>${v[3] > 0 ? "+" : ""}${v[3]} ${FFO.esc(v[2])}: ${FFO.esc(v[4])}</div>`).join("") || "-";
    $("battle").innerHTML = FFO.battleHtml(f.battle, units, names, k > 0 ? position(k - 1) : p) || "no battle";
    const log = $("log");
    const from = Math.max(0, d0 - 12), to = Math.min(D.decisions.length, d1 + 12);
    let lh = "";
    for (let i = from; i < to; i++) {
      const r = D.decisions[i];
      lh += `<div class="${i >= d0 && i < d1 ? "cur " : ""}${r[1] ? "auto" : ""} ${r[0] ? "german" : "french"}">${i} ${FFO.esc(r[3] ? r[3].split(" ")[0] : "")} ${r[0] ? "G" : "F"}: ${FFO.esc(r[2])}</div>`;
    }
    log.innerHTML = lh;
    const here = log.querySelector(".cur");
    if (here) log.scrollTop = here.offsetTop - log.offsetTop - 60;
    const c = document.getElementById("cursor");
    if (c) { c.setAttribute("x1", chartX(k)); c.setAttribute("x2", chartX(k)); }
    slider.value = k;
  }

  function go(k) { cur = Math.max(0, Math.min(N, k)); render(cur); }
  function stop() { if (timer) { clearInterval(timer); timer = null; $("play").textContent = "\u25B6 play"; } }
  function play() {
    if (timer) { stop(); return; }
    if (cur >= N) cur = 0;
    $("play").textContent = "\u275A\u275A pause";
    timer = setInterval(() => { if (cur >= N) stop(); else go(cur + 1); }, Number($("speed").value));
  }
  function turnStart(dir) {
    const p = position(cur).turn;
    let k = cur;
    const turnAt = (j) => (j === 0 ? D.first.turn : frames[j - 1].turn);
    if (dir > 0) { while (k < N && turnAt(k) <= p) k++; } else {
      while (k > 0 && turnAt(k - 1) >= p) k--;
      if (k === cur && k > 0) { const q = turnAt(k - 1); while (k > 0 && turnAt(k - 1) >= q) k--; }
    }
    go(k);
  }
  $("first").onclick = () => { stop(); go(0); };
  $("prev").onclick = () => { stop(); go(cur - 1); };
  $("next").onclick = () => { stop(); go(cur + 1); };
  $("last").onclick = () => { stop(); go(N); };
  $("pturn").onclick = () => { stop(); turnStart(-1); };
  $("nturn").onclick = () => { stop(); turnStart(1); };
  $("play").onclick = play;
  $("speed").onchange = () => { if (timer) { stop(); play(); } };
  slider.oninput = () => { stop(); go(Number(slider.value)); };
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowRight") { stop(); go(cur + 1); } else if (e.key === "ArrowLeft") { stop(); go(cur - 1); }
    else if (e.key === " ") { e.preventDefault(); play(); } else if (e.key === "Home") { stop(); go(0); }
    else if (e.key === "End") { stop(); go(N); }
  });
  $("zoom").oninput = () => { const z = Number($("zoom").value) / 100; board.svg.style.width = (D.geo.w * z) + "px"; board.svg.style.height = (D.geo.h * z) + "px"; };
  const res = D.result || {};
  const ag = D.agents || {};
  $("title").textContent = `Seed ${D.seed}` + (ag.french ? ` - French: ${ag.french}, German: ${ag.german}` : "")
    + (res.winner ? ` - ${res.winner} victory, ${res.vp} VP after GT${res.turn}` : "");
  let turns = "";
  for (let t = 1; t <= D.last_turn; t++) turns += `<span data-t="${t}">${t}</span>`;
  $("turns").innerHTML = turns;
  $("phases").innerHTML = FFO.PHASES.slice(2, 16).map((p) => `<span data-p="${p}" title="${p}">${p.replace(/_/g, " ").toLowerCase()}</span>`).join("");
  window.ffoViewer = { n: N, go: go, position: position, current: () => cur, finalVp: finalPos.vp };
  go(0);
  document.body.dataset.readyMs = performance.now().toFixed(0);  // navigation start -> ready
  document.body.dataset.ready = "1";
})();
