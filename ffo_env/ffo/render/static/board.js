// Drawing counters and markers over the static SVG board (shared by the replay viewer and web play).
// A position is the snapshot of ffo_env/ffo/render/frames.py: stacks {hex: [unit, ... top]}, cfv [[cf, full]],
// control [0 French / 1 German per hex], refugees {hex: flipped}. Unit -1 is a unit hidden by fog (R3).
"use strict";
const FFO = {};
FFO.SIDE = { french: "#4678d7", german: "#7d8278" };
FFO.SIDE_DARK = { french: "#1d3f86", german: "#40443d" };
FFO.NS = "http://www.w3.org/2000/svg";
FFO.PHASES = ["SETUP_FRENCH", "SETUP_GERMAN", "EVACUATION", "FRENCH_MOVEMENT", "FRENCH_COMBAT",
  "REFUGEE_RECOVERY", "PANZER_SCARE", "GERMAN_ORDER", "REPLACEMENT", "LUFTWAFFE", "GERMAN_MOVEMENT",
  "GERMAN_COMBAT", "REPLACEMENT_COMPLETION", "REINFORCEMENT", "REFUGEE_PLACEMENT", "SCARE_REMOVAL", "GAME_OVER"];

FFO.el = function (tag, attrs, parent) {
  const e = document.createElementNS(FFO.NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
};

FFO.hexPoints = function (geo, h, shrink) {
  const x = geo.cx[h], y = geo.cy[h], r = geo.r * (shrink || 1);
  const pts = [];
  for (let k = 0; k < 6; k++) {
    const a = (30 + 60 * k) * Math.PI / 180;
    pts.push((x + r * Math.cos(a)).toFixed(1) + "," + (y - r * Math.sin(a)).toFixed(1));
  }
  return pts.join(" ");
};

// NATO-style unit symbol in a box of width w, height h centred at (0, 0).
FFO.symbol = function (g, type, w, h, fg) {
  const st = { stroke: fg, "stroke-width": Math.max(1, w / 14), fill: "none" };
  FFO.el("rect", Object.assign({ x: -w / 2, y: -h / 2, width: w, height: h }, st), g);
  const cross = () => {
    FFO.el("line", Object.assign({ x1: -w / 2, y1: -h / 2, x2: w / 2, y2: h / 2 }, st), g);
    FFO.el("line", Object.assign({ x1: -w / 2, y1: h / 2, x2: w / 2, y2: -h / 2 }, st), g);
  };
  const oval = (ry) => FFO.el("ellipse", Object.assign({ cx: 0, cy: 0, rx: w * 0.32, ry: h * ry }, st), g);
  if (type === "panzer" || type === "armor") oval(0.28);
  else if (type === "cavalry") FFO.el("line", Object.assign({ x1: -w / 2, y1: h / 2, x2: w / 2, y2: -h / 2 }, st), g);
  else if (type === "motorized") { cross(); FFO.el("line", Object.assign({ x1: 0, y1: -h / 2, x2: 0, y2: h / 2 }, st), g); }
  else if (type === "mountain") { cross(); FFO.el("path", { d: `M${-w * 0.18},${h / 2} L0,${h * 0.12} L${w * 0.18},${h / 2} Z`, fill: fg }, g); }
  else if (type === "fortress") {
    FFO.el("path", Object.assign({ d: `M${-w * 0.3},${h * 0.3} V${-h * 0.1} H${-w * 0.15} V${-h * 0.3} H${w * 0.15} V${-h * 0.1} H${w * 0.3} V${h * 0.3} Z` }, st), g);
  } else if (type === "naval_garrison") {
    FFO.el("path", Object.assign({ d: `M0,${-h * 0.35} V${h * 0.35} M${-w * 0.25},${h * 0.1} Q0,${h * 0.55} ${w * 0.25},${h * 0.1} M${-w * 0.15},${-h * 0.15} H${w * 0.15}` }, st), g);
  } else {
    cross();
    if (type === "colonial") FFO.el("circle", { cx: 0, cy: 0, r: h * 0.16, fill: fg }, g);
  }
};

// One counter group: up to three offset boxes for a stack, the top unit's size, symbol, CF and name.
FFO.counter = function (units, top, height, cfv, s) {
  const g = FFO.el("g", { class: "counter" });
  const half = 0.34 * s, off = 0.06 * s;
  const spec = top >= 0 ? units[top] : null;
  const side = spec ? spec.side : "german";
  for (let k = Math.min(height, 3) - 1; k >= 0; k--) {
    FFO.el("rect", { x: -half - k * off, y: -half - k * off, width: 2 * half, height: 2 * half, rx: s * 0.04,
      fill: FFO.SIDE[side], stroke: "#000", "stroke-width": Math.max(1, s / 50) }, g);
  }
  if (!spec) return g;
  const fg = "#fff";
  const t = (txt, y, size, cls) => {
    const e = FFO.el("text", { x: 0, y: y, "font-size": size, fill: fg, "text-anchor": "middle", class: cls || "" }, g);
    e.textContent = txt;
    return e;
  };
  t(spec.size, -half + s * 0.12, s * 0.11);
  const sym = FFO.el("g", { transform: `translate(0,${-s * 0.1})` }, g);
  FFO.symbol(sym, spec.type, s * 0.34, s * 0.19, fg);
  const cf = cfv[top];
  const full = cf ? cf[1] : true;
  const strength = t(cf ? String(cf[0]) : "?", half - s * 0.165, s * 0.16, "cf");
  if (!full) strength.setAttribute("fill", "#ffd24a");  // reduced: the back of the counter
  t(spec.id.replace(/^[a-z]+-/, ""), half - s * 0.04, s * 0.115);
  if (height > 1) {
    const b = FFO.el("text", { x: half + s * 0.02, y: half + s * 0.02, "font-size": s * 0.17, "text-anchor": "end",
      fill: "#000", stroke: "#fff", "stroke-width": 2.5, "paint-order": "stroke", class: "height" }, g);
    b.textContent = String(height);
  }
  return g;
};

// Redraw the overlay. Counter groups are keyed by their top unit and moved with a CSS transform, so a
// unit that stays on top of its stack glides to its new hex (the animation of moves).
FFO.draw = function (board, units, pos, opts) {
  opts = opts || {};
  const geo = board.geo, s = geo.s;
  const overlay = board.svg.querySelector("#overlay"), marks = board.svg.querySelector("#marks");
  marks.innerHTML = "";
  // German control of land hexes: a light hatch; cities carry a flag of their controller
  for (let h = 0; h < pos.control.length; h++) {
    if (pos.control[h] === 1 && !board.sea[h] && !board.startGerman[h]) {
      FFO.el("polygon", { points: FFO.hexPoints(geo, h, 0.96), fill: "url(#hatch)", class: "ctl" }, marks);
    }
  }
  for (const h of board.cities) {
    const side = pos.control[h] === 1 ? "german" : "french";
    const x = geo.cx[h] + 0.3 * s, y = geo.cy[h] - 0.05 * s;
    FFO.el("line", { x1: x, y1: y - 0.28 * s, x2: x, y2: y + 0.12 * s, stroke: "#000", "stroke-width": 1 }, marks);
    FFO.el("rect", { x: x, y: y - 0.28 * s, width: 0.2 * s, height: 0.14 * s, fill: FFO.SIDE[side], stroke: "#000",
      "stroke-width": 0.8, class: "flag flag-" + side, "data-hex": h }, marks);
  }
  const keep = new Map();
  for (const g of overlay.querySelectorAll("g.counter")) keep.set(g.dataset.key, g);
  const seen = new Set();
  for (const hs in pos.stacks) {
    const st = pos.stacks[hs], h = Number(hs);
    if (!st.length) continue;
    const top = st[st.length - 1];
    const key = top >= 0 ? "u" + top : "h" + h;
    const sig = [h, st.length, JSON.stringify(pos.cfv[top] || null)].join("|");
    let g = keep.get(key);
    if (g && g.dataset.sig.split("|").slice(1).join("|") !== sig.split("|").slice(1).join("|")) {
      const fresh = FFO.counter(units, top, st.length, pos.cfv, s);
      fresh.style.transform = g.style.transform;
      overlay.replaceChild(fresh, g);
      g = fresh;
    }
    if (!g) {
      g = FFO.counter(units, top, st.length, pos.cfv, s);
      g.style.transform = `translate(${geo.cx[h]}px, ${geo.cy[h]}px)`;
      overlay.appendChild(g);
    }
    g.dataset.key = key;
    g.dataset.sig = sig;
    g.dataset.hex = h;
    g.dataset.side = top >= 0 ? units[top].side : "";
    g.dataset.unit = top;
    g.classList.toggle("moving", !!opts.animate);  // before the move, so that the transition applies
    g.style.transform = `translate(${geo.cx[h]}px, ${geo.cy[h]}px)`;
    seen.add(key);
  }
  for (const [k, g] of keep) if (!seen.has(k)) g.remove();
  for (const hs in pos.refugees) {  // refugee marker: orange diamond left of the counter slot (rule 10)
    const h = Number(hs), cx = geo.cx[h] - 0.32 * s, cy = geo.cy[h] + 0.24 * s, d = 0.13 * s;
    FFO.el("path", { d: `M${cx},${cy - d} L${cx + d},${cy} L${cx},${cy + d} L${cx - d},${cy} Z`, fill: "#f08c14",
      stroke: "#000", class: "refugee", "data-hex": h }, marks);
    const t = FFO.el("text", { x: cx, y: cy + s * 0.05, "font-size": s * 0.13, "text-anchor": "middle" }, marks);
    t.textContent = pos.refugees[hs] ? "R*" : "R";
  }
  for (const h of opts.highlight || []) {
    FFO.el("polygon", { points: FFO.hexPoints(geo, h, 0.9), fill: "none", stroke: opts.highlightColor || "#ffd400",
      "stroke-width": s / 12, class: "hl" }, marks);
  }
  if (opts.selected !== undefined && opts.selected !== null) {
    FFO.el("polygon", { points: FFO.hexPoints(geo, opts.selected, 0.95), fill: "none", stroke: "#00b0ff",
      "stroke-width": s / 9, class: "selected" }, marks);
  }
  if (opts.target !== undefined && opts.target !== null) {
    FFO.el("polygon", { points: FFO.hexPoints(geo, opts.target, 0.95), fill: "none", stroke: "#e00000",
      "stroke-width": s / 10, "stroke-dasharray": `${s / 6},${s / 10}`, class: "target" }, marks);
  }
};

FFO.initBoard = function (svg, geo, mapinfo) {
  const defs = FFO.el("defs", {});
  svg.insertBefore(defs, svg.firstChild);
  const pat = FFO.el("pattern", { id: "hatch", width: 8, height: 8, patternUnits: "userSpaceOnUse",
    patternTransform: "rotate(45)" }, defs);
  FFO.el("rect", { width: 8, height: 8, fill: "rgba(90,90,80,0.10)" }, pat);
  FFO.el("line", { x1: 0, y1: 0, x2: 0, y2: 8, stroke: "rgba(60,60,50,0.35)", "stroke-width": 2 }, pat);
  const sea = new Array(geo.cx.length).fill(false), startGerman = new Array(geo.cx.length).fill(false);
  for (const h of mapinfo.sea) sea[h] = true;
  for (const h of mapinfo.german_start) startGerman[h] = true;
  return { svg: svg, geo: geo, cities: mapinfo.cities, sea: sea, startGerman: startGerman };
};

FFO.hexName = function (names, h) { return names[h]; };

FFO.applyDelta = function (pos, d) {
  for (const k of ["vp", "turn", "phase", "player", "decision", "at", "n_dice", "n_vp", "terminal", "winner"]) {
    if (k in d) pos[k] = d[k];
  }
  if (d.stacks) for (const h in d.stacks) { if (d.stacks[h].length) pos.stacks[h] = d.stacks[h]; else delete pos.stacks[h]; }
  for (const k of ["status", "cfv", "control"]) if (d[k]) for (const i in d[k]) pos[k][Number(i)] = d[k][i];
  if (d.refugees) for (const h in d.refugees) { if (d.refugees[h] === null) delete pos.refugees[h]; else pos.refugees[h] = d.refugees[h]; }
  return pos;
};

FFO.clone = function (pos) {
  return { stacks: Object.assign({}, pos.stacks), status: pos.status.slice(), cfv: pos.cfv.slice(),
    control: pos.control.slice(), refugees: Object.assign({}, pos.refugees), vp: pos.vp, turn: pos.turn,
    phase: pos.phase, player: pos.player, decision: pos.decision, at: pos.at, n_dice: pos.n_dice, n_vp: pos.n_vp,
    terminal: pos.terminal, winner: pos.winner };
};

// Battle box text: the declared battle, its combat factors and the engine's odds (State.battle_preview).
FFO.battleHtml = function (b, units, names, pos) {
  if (!b) return "";
  const cf = (u) => (pos && pos.cfv[u] ? pos.cfv[u][0] : units[u].cf[0]);
  const list = (us) => us.map((u) => `${units[u].id} (${cf(u)})`).join(", ") || "-";
  let html = `<b>Battle at ${names[b.hex]}</b> (${b.side} attacks)<br>attackers: ${list(b.att)}`
    + `<br>defenders: ${list(b.def)}<br>raw combat factors <b class="odds">${b.att_cf} : ${b.def_cf}</b>`;
  if (b.def_cf > 0 && b.att_cf > 0) html += ` (difference ${b.att_cf - b.def_cf >= 0 ? "+" : ""}${b.att_cf - b.def_cf})`;
  const o = b.odds;
  if (o) {
    const sign = (n) => (n >= 0 ? "+" : "") + n;
    const shifts = o.shifts.map((s) => `${s[0]} ${sign(s[1])} (${s[2]})`).join(", ") || "none";
    const pct = Object.entries(o.outcomes).map(([r, p]) => `${r} ${Math.round(p * 100)}%`).join(" ");
    html += `<br>odds: strengths ${o.att_cf} : ${o.def_cf}, differential ${sign(o.diff)} → column <b class="odds">${o.column}</b>`
      + ` (from ${o.base}; shifts: ${FFO.esc(shifts)}${o.city_die ? "; city die still to come" : ""})`
      + `<br>results: ${pct}`;
  }
  if (b.extra && b.extra.length) html += "<br>" + b.extra.join("; ");
  return html;
};

FFO.esc = function (s) {
  return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
};
