// A graph from /assistants/{id}/graph drawn as SVG: nodes in layers by their longest path
// from __start__ (back edges of loops ignored), conditional edges dashed.

const NS = "http://www.w3.org/2000/svg";

export interface DrawableGraph {
  nodes: { id: string | number; name?: string }[];
  edges: { source: string | number; target: string | number; conditional?: boolean }[];
}

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** Layer index per node: longest path from the roots over the graph without its back edges. */
export function layers(graph: DrawableGraph): Map<string, number> {
  const ids = graph.nodes.map((n) => String(n.id));
  const out = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const e of graph.edges) out.get(String(e.source))?.push(String(e.target));
  const back = new Set<string>();
  const state = new Map<string, number>(); // 1 visiting, 2 done
  const visit = (id: string): void => {
    state.set(id, 1);
    for (const t of out.get(id) ?? []) {
      if (state.get(t) === 1) back.add(`${id}->${t}`);
      else if (!state.has(t)) visit(t);
    }
    state.set(id, 2);
  };
  const start = ids.includes("__start__") ? ["__start__"] : [];
  [...start, ...ids].forEach((id) => state.has(id) || visit(id));
  const layer = new Map<string, number>(ids.map((id) => [id, 0]));
  for (let pass = 0; pass < ids.length; pass++) {
    let changed = false;
    for (const e of graph.edges) {
      const [s, t] = [String(e.source), String(e.target)];
      if (back.has(`${s}->${t}`)) continue;
      const want = (layer.get(s) ?? 0) + 1;
      if ((layer.get(t) ?? 0) < want) {
        layer.set(t, want);
        changed = true;
      }
    }
    if (!changed) break;
  }
  // The end goes below everything, wherever its shortest way in comes from.
  if (layer.has("__end__")) {
    const others = [...layer].filter(([id]) => id !== "__end__").map(([, l]) => l);
    layer.set("__end__", Math.max(0, ...others) + 1);
  }
  return layer;
}

/** The SVG picture of `graph`, labelled for screen readers with its nodes and edges. */
export function drawGraph(graph: DrawableGraph, title: string): SVGSVGElement {
  const layer = layers(graph);
  const rows = new Map<number, string[]>();
  for (const n of graph.nodes) {
    const l = layer.get(String(n.id)) ?? 0;
    rows.set(l, [...(rows.get(l) ?? []), String(n.id)]);
  }
  const [w, hgt, gapX, gapY] = [140, 36, 30, 50];
  const width = Math.max(...[...rows.values()].map((r) => r.length)) * (w + gapX) + gapX;
  const height = rows.size * (hgt + gapY) + gapY;
  const pos = new Map<string, { x: number; y: number }>();
  for (const [l, ids] of rows) {
    const rowWidth = ids.length * (w + gapX) - gapX;
    ids.forEach((id, i) => pos.set(id, { x: (width - rowWidth) / 2 + i * (w + gapX), y: gapY / 2 + l * (hgt + gapY) }));
  }
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img", class: "graph" });
  const desc = graph.edges.map((e) => `${e.source} to ${e.target}${e.conditional ? " (conditional)" : ""}`).join("; ");
  const t = svg("title", {});
  t.textContent = `${title}: ${desc}`;
  root.append(t);
  const defs = svg("defs", {});
  const marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 8, markerHeight: 8, orient: "auto" });
  marker.append(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#444" }));
  defs.append(marker);
  root.append(defs);
  for (const e of graph.edges) {
    const a = pos.get(String(e.source));
    const b = pos.get(String(e.target));
    if (!a || !b) continue;
    const down = b.y > a.y;
    const [x1, y1] = [a.x + w / 2, down ? a.y + hgt : a.y];
    const [x2, y2] = [b.x + w / 2, down ? b.y : b.y + hgt];
    // Back up (a loop) curves round the right; down past a layer curves round the left.
    const skips = down && b.y - a.y > hgt + gapY;
    const bend = down ? (skips ? -w * 0.9 : 0) : w * 0.9;
    const d = `M${x1},${y1} C${x1 + bend},${(y1 + y2) / 2} ${x2 + bend},${(y1 + y2) / 2} ${x2},${y2}`;
    root.append(svg("path", { d, fill: "none", stroke: "#444", "stroke-width": 1.5, "stroke-dasharray": e.conditional ? "5 4" : "none", "marker-end": "url(#arrow)" }));
  }
  for (const n of graph.nodes) {
    const p = pos.get(String(n.id));
    if (!p) continue;
    const special = String(n.id).startsWith("__");
    root.append(svg("rect", { x: p.x, y: p.y, width: w, height: hgt, rx: special ? 18 : 6, fill: special ? "#eef" : "#fff", stroke: "#333" }));
    const label = svg("text", { x: p.x + w / 2, y: p.y + hgt / 2 + 5, "text-anchor": "middle", "font-size": 13, fill: "#111" });
    label.textContent = String(n.id);
    root.append(label);
  }
  return root;
}
