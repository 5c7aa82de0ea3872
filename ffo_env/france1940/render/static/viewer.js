// The France 1940 replay viewer: step, play and scrub through every decision of one verified game record.
// Each frame holds the SVG layers that changed (a hex's stack, aircraft, fortresses, status, panel).
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("f40-data").textContent);
  const frames = D.frames, N = frames.length;  // positions 0..N: 0 is the start, k follows agent decision k
  const $ = (id) => document.getElementById(id);
  const SIDES = ["french", "german"];
  const slider = $("slider");
  slider.max = N;
  let cur = -1, at = {}, timer = null;

  function esc(s) { return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]); }
  function layersAt(k) {  // the layers of position k as pool indexes, from the last one shown when going forward
    let from = 0, m;
    if (k >= cur && cur >= 0) { from = cur; m = at; } else { m = Object.assign({}, D.first); }
    for (let i = from; i < k; i++) Object.assign(m, frames[i].layers);
    return m;
  }
  function decRange(k) {  // record decisions covered by position k: [from, to)
    if (k === 0) return [0, N ? frames[0].d[0] : D.decisions.length];
    return frames[k - 1].d;
  }
  function counts(k) { return k === 0 ? D.n0 : frames[k - 1].n; }
  function go(k) {
    k = Math.max(0, Math.min(N, k | 0));
    at = layersAt(k);
    const drawn = {};
    for (const name of Object.keys(at)) { const s = D.pool[at[name]]; if (s || name[0] !== "h") drawn[name] = s; }
    F40Map.setAll(drawn);
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
    const n0 = k === 0 ? [0, 0] : counts(k - 1), n1 = counts(k);
    $("dice").innerHTML = D.dice.slice(n0[0], n1[0]).map((r) => '<b class="die" title="' + esc(r[0]) + '">' + r[1] +
      '</b><span class="keys">' + esc(r[0]) + "</span> ").join("") || "(none)";
    $("events").innerHTML = D.events.slice(n0[1], n1[1]).map((e) => "<div>" + esc(e.join(" ")) + "</div>").join("") || "(none)";
    $("who").textContent = k === N && D.result ? "game over: " + D.result : (N && k < N ? "next: " + D.decisions[frames[k].d[0]][3] : "");
    document.querySelectorAll("#log div.cur").forEach((e) => e.classList.remove("cur"));
    const row = $("log-" + a);
    if (row && k > 0) { row.classList.add("cur"); row.scrollIntoView({ block: "nearest" }); }
    document.body.dataset.step = String(k);
  }
  $("log").innerHTML = D.decisions.map((d, i) => '<div id="log-' + i + '" class="' + (d[1] ? "auto" : "") + '">' + i + " " +
    '<span class="' + SIDES[d[0]] + '">' + SIDES[d[0]][0].toUpperCase() + "</span> " + esc(d[2]) + "</div>").join("");
  $("title").textContent = "armies: Allied " + D.columns[0] + ", German " + D.columns[1] +
    (D.seed === null ? "" : ", seed " + D.seed) + (D.viewer ? " - seen by the " + D.viewer + " player" : " - both sides") +
    (D.winner ? " - " + D.winner + " won" : "");
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
  $("ids").onchange = () => F40Map.showIds($("ids").checked);
  slider.addEventListener("input", () => { stop(); go(Number(slider.value)); });
  document.addEventListener("keydown", (e) => {
    if (e.target && (e.target.tagName === "SELECT" || e.target.tagName === "INPUT" && e.target.type === "checkbox")) return;
    if (e.key === "ArrowRight") { stop(); go(cur + 1); }
    else if (e.key === "ArrowLeft") { stop(); go(cur - 1); }
    else if (e.key === "Home") { stop(); go(0); }
    else if (e.key === "End") { stop(); go(N); }
    else if (e.key === " ") { e.preventDefault(); play(); }
    else return;
    e.preventDefault();
  });
  window.f40Viewer = { n: N, go: go, get k() { return cur; } };
  go(0);
  document.body.dataset.ready = "1";
})();
