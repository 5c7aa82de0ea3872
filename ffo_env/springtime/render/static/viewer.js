// The Springtime replay viewer: step, play and scrub through every decision of one verified game record.
// Each frame holds the SVG layers (one per location, the panel, the status line) that changed.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("sfh-data").textContent);
  const frames = D.frames, N = frames.length;  // positions 0..N: 0 is the start, k follows agent decision k
  const $ = (id) => document.getElementById(id);
  const SIDES = ["french", "german"];
  // the layers of every position, as indexes into D.pool (each distinct drawing is sent once)
  const positions = [Object.assign({}, D.first)];
  for (let k = 1; k <= N; k++) positions.push(Object.assign({}, positions[k - 1], frames[k - 1].layers));
  const shown = {};
  const slider = $("slider");
  slider.max = N;
  let cur = -1, timer = null;

  function esc(s) { return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]); }
  function decRange(k) {  // record decisions covered by position k: [from, to)
    if (k === 0) return [0, N ? frames[0].d[0] : D.decisions.length];
    return frames[k - 1].d;
  }
  function go(k) {
    k = Math.max(0, Math.min(N, k | 0));
    const p = positions[k];
    for (const name of D.order) {
      if (shown[name] !== p[name]) { $("layer-" + name).innerHTML = D.pool[p[name]]; shown[name] = p[name]; }
    }
    cur = k;
    slider.value = k;
    $("step").textContent = k + " / " + N;
    const [a, b] = decRange(k);
    const rows = [];
    for (let i = (k === 0 ? 0 : a); i < b; i++) {
      const d = D.decisions[i];
      rows.push('<div class="' + (d[1] ? "auto" : "") + '"><span class="' + SIDES[d[0]] + '">' + SIDES[d[0]] + "</span> " +
        esc(d[2]) + ' <span class="keys">' + esc(d[3]) + "</span></div>");
    }
    $("decided").innerHTML = rows.join("") || "(the start)";
    // the dice of this step, and the Morale changes so far (newest first)
    const n0 = k === 0 ? [0, 0] : (k === 1 ? D.n0 : frames[k - 2].n), n1 = k === 0 ? D.n0 : frames[k - 1].n;
    $("dice").innerHTML = D.dice.slice(n0[0], n1[0]).map((r) => r[0] === null ?
      '<span title="' + esc(r[2]) + '">draw of ' + r[1] + "</span> " :
      '<b class="die" title="' + esc(r[2] + " (turn " + r[3] + ", box " + r[4] + ")") + '">' + r[0] + "</b>" +
      '<span class="keys">' + esc(r[2]) + "</span> ").join("") || "(none)";
    $("morale").innerHTML = D.morale_log.slice(0, n1[1]).reverse().map((m) => "<div>T" + m[0] + " box " + m[1] + ": " +
      (m[2] > 0 ? "+" : "") + m[2] + " " + esc(m[3]) + "</div>").join("") || "(none)";
    $("who").textContent = k === N && D.result ? "game over: " + D.result : (N && k < N ? "next: " + D.decisions[frames[k].d[0]][3] : "");
    document.querySelectorAll("#log div.cur").forEach((e) => e.classList.remove("cur"));
    const row = $("log-" + a);
    if (row && k > 0) { row.classList.add("cur"); row.scrollIntoView({ block: "nearest" }); }
    document.body.dataset.step = String(k);
  }
  $("log").innerHTML = D.decisions.map((d, i) => '<div id="log-' + i + '" class="' + (d[1] ? "auto" : "") + '">' + i + " " +
    '<span class="' + SIDES[d[0]] + '">' + SIDES[d[0]][0].toUpperCase() + "</span> " + esc(d[2]) + "</div>").join("");
  $("title").textContent = "scenario " + D.scenario + ", seed " + D.seed + (D.winner ? " - " + D.winner + " won" : "");
  function stop() { if (timer) { clearInterval(timer); timer = null; $("play").innerHTML = "&#9654; play"; } }
  function play() {
    if (timer) { stop(); return; }
    if (cur >= N) go(0);
    $("play").innerHTML = "&#10074;&#10074; pause";
    timer = setInterval(() => { if (cur >= N) stop(); else go(cur + 1); }, Number($("speed").value));
  }
  $("first").onclick = () => { stop(); go(0); };
  $("prev").onclick = () => { stop(); go(cur - 1); };
  $("next").onclick = () => { stop(); go(cur + 1); };
  $("last").onclick = () => { stop(); go(N); };
  $("play").onclick = play;
  $("speed").onchange = () => { if (timer) { stop(); play(); } };
  slider.addEventListener("input", () => { stop(); go(Number(slider.value)); });
  document.addEventListener("keydown", (e) => {
    if (e.target && e.target.tagName === "SELECT") return;
    if (e.key === "ArrowRight") { stop(); go(cur + 1); }
    else if (e.key === "ArrowLeft") { stop(); go(cur - 1); }
    else if (e.key === "Home") { stop(); go(0); }
    else if (e.key === "End") { stop(); go(N); }
    else if (e.key === " ") { e.preventDefault(); play(); }
    else return;
    e.preventDefault();
  });
  window.sfhViewer = { n: N, go: go, get k() { return cur; } };
  go(0);
  document.body.dataset.ready = "1";
})();
