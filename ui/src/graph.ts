// A graph drawn as SVG: nodes, subgraph boxes and edges where dagre puts them (graph_layout.ts,
// loaded on first use), conditional edges dashed, a node that runs a subgraph drawn with a
// double border. Colours come from styles.css (the page's palette, so the dark theme applies);
// a node's `data-state` (idle, running, done, interrupted, error) is set by `paintStates`, with
// a mark beside its name so the state does not rest on colour alone.

import { uid } from "./dom";
import type { Layout, Point } from "./graph_layout";
import type { GraphShape } from "./graph_shape";
import type { NodeState } from "./run_progress";
import { LazyModule } from "./lazy";

const NS = "http://www.w3.org/2000/svg";
const NODE_HEIGHT = 34;
/** Room beside a node's name: padding on both sides, the state mark on the right. */
const NODE_PADDING = 44;
/** styles.css sets this size on `svg.graph`; labels are measured at it. */
const FONT_SIZE_PX = 13;

/** The layout chunk (dagre), fetched the first time a graph is drawn. */
const layoutChunk = new LazyModule(() => import("./graph_layout"));

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number> = {}): SVGElementTagNameMap[K] {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

let canvas: CanvasRenderingContext2D | null = null;

/** The width of `text` in the page's font at the graph's size (`bold`: a subgraph's name). */
function measure(text: string, bold = false): number {
  canvas ??= document.createElement("canvas").getContext("2d");
  if (!canvas) return text.length * FONT_SIZE_PX * (bold ? 0.68 : 0.62);
  canvas.font = `${bold ? "600 " : ""}${FONT_SIZE_PX}px ${getComputedStyle(document.documentElement).fontFamily}`;
  return canvas.measureText(text).width;
}

/** A smooth line through dagre's bend points: straight from each point to the middle of the
 * next segment, curving round the bend in between. */
export function smoothPath(points: Point[]): string {
  if (!points.length) return "";
  const [first, ...rest] = points;
  let d = `M${first.x},${first.y}`;
  for (let i = 0; i < rest.length - 1; i++) {
    const [bend, next] = [rest[i], rest[i + 1]];
    d += ` Q${bend.x},${bend.y} ${(bend.x + next.x) / 2},${(bend.y + next.y) / 2}`;
  }
  const last = rest[rest.length - 1];
  if (last) d += ` L${last.x},${last.y}`;
  return d;
}

/** The mark beside a node's name for each state (drawn round 0,0, about 10 px across). */
const MARKS: Record<Exclude<NodeState, "idle">, () => SVGElement> = {
  running: () => svg("circle", { r: 4.5, class: "mark-fill" }),
  done: () => svg("path", { d: "M-4.5,0.5 L-1.5,3.5 L4.5,-3.5", class: "mark-line" }),
  interrupted: () => svg("path", { d: "M-2.5,-4.5 V4.5 M2.5,-4.5 V4.5", class: "mark-line" }),
  error: () => svg("path", { d: "M-3.5,-3.5 L3.5,3.5 M3.5,-3.5 L-3.5,3.5", class: "mark-line" }),
};

export interface DrawOptions {
  /** The picture's accessible name ("Graph of react_agent"); its edges are listed after it. */
  title: string;
  /** Nodes that run a subgraph (drawn with a double border when shown collapsed). */
  subgraphs?: ReadonlySet<string>;
  /** The id of an element describing the picture further (the run's progress in words). */
  describedBy?: string;
}

/** Lay `shape` out and draw it; every node and cluster is a `g[data-node]` at `data-state=idle`. */
export async function drawGraph(shape: GraphShape, options: DrawOptions): Promise<SVGSVGElement> {
  const { layoutGraph } = await layoutChunk.get();
  const layout = layoutGraph(shape, { measure, nodeHeight: NODE_HEIGHT, padding: NODE_PADDING });
  return render(layout, options);
}

function render(layout: Layout, options: DrawOptions): SVGSVGElement {
  const { width, height } = layout;
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img", class: "graph" });
  if (options.describedBy) root.setAttribute("aria-describedby", options.describedBy);
  const title = svg("title");
  const edges = layout.edges.map((e) => `${e.source} to ${e.target}${e.conditional ? " (conditional)" : ""}`);
  title.textContent = `${options.title}: ${edges.join("; ")}`;
  const arrowId = uid("graph-arrow");
  const marker = svg("marker", { id: arrowId, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" });
  marker.append(svg("path", { d: "M0,0 L10,5 L0,10 z", class: "graph-arrow" }));
  const defs = svg("defs");
  defs.append(marker);
  root.append(title, defs);

  // Subgraph boxes under everything (outer ones first, so nested boxes lie on them); their
  // names, on a tab over the top border, over the edges that cross it.
  const depth = (id: string) => id.split(":").length;
  const clusters = [...layout.clusters].sort((a, b) => depth(a.id) - depth(b.id));
  for (const c of clusters) {
    const box = svg("rect", { class: "cluster-box", x: c.x, y: c.y, width: c.width, height: c.height, rx: 8 });
    box.dataset.boxOf = c.id;
    box.dataset.state = "idle";
    root.append(box);
  }
  for (const e of layout.edges) {
    const path = svg("path", { class: e.conditional ? "graph-edge conditional" : "graph-edge", d: smoothPath(e.points), "marker-end": `url(#${arrowId})` });
    path.dataset.source = e.source;
    path.dataset.target = e.target;
    root.append(path);
  }
  for (const c of clusters) {
    const group = svg("g", { class: "graph-cluster", "data-node": c.id, "data-state": "idle" });
    const tabWidth = measure(c.label, true) + 12;
    group.append(svg("rect", { class: "cluster-tab", x: c.x + 8, y: c.y - 9, width: tabWidth, height: 18, rx: 4 }));
    const label = svg("text", { class: "cluster-label", x: c.x + 14, y: c.y + FONT_SIZE_PX * 0.35 });
    label.textContent = c.label;
    group.append(label, markHolder(c.x + 8 + tabWidth + 9, c.y));
    root.append(group);
  }
  for (const n of layout.nodes) {
    const kind = n.id === "__start__" ? "start" : n.id === "__end__" ? "end" : "step";
    const group = svg("g", { class: "graph-node", "data-node": n.id, "data-kind": kind, "data-state": "idle" });
    const special = kind !== "step";
    group.append(svg("rect", { class: "node-box", x: n.x, y: n.y, width: n.width, height: n.height, rx: special ? n.height / 2 : 6 }));
    if (options.subgraphs?.has(n.id)) {
      group.dataset.subgraph = "true";
      group.append(svg("rect", { class: "node-inner", x: n.x + 3, y: n.y + 3, width: n.width - 6, height: n.height - 6, rx: 4 }));
    }
    const label = svg("text", { class: "node-label", x: n.x + n.width / 2, y: n.y + n.height / 2 + FONT_SIZE_PX * 0.35, "text-anchor": "middle" });
    label.textContent = n.label;
    group.append(label, markHolder(n.x + n.width - 12, n.y + n.height / 2));
    root.append(group);
  }
  return root;
}

function markHolder(x: number, y: number): SVGGElement {
  return svg("g", { class: "node-mark", transform: `translate(${x},${y})` });
}

/** Show each node's state (nodes not in `states` are idle) on a drawing of `drawGraph`. */
export function paintStates(picture: SVGSVGElement, states: ReadonlyMap<string, NodeState>): void {
  for (const box of picture.querySelectorAll<SVGRectElement>("rect[data-box-of]")) {
    box.dataset.state = states.get(box.dataset.boxOf ?? "") ?? "idle";
  }
  for (const group of picture.querySelectorAll<SVGGElement>("g[data-node]")) {
    const state = states.get(group.dataset.node ?? "") ?? "idle";
    if (group.dataset.state === state) continue;
    group.dataset.state = state;
    const holder = group.querySelector(":scope > .node-mark");
    holder?.replaceChildren(...(state === "idle" ? [] : [MARKS[state]()]));
  }
}
