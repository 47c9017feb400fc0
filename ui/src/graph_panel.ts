// An assistant's graph in the page: read from /assistants/{id}/graph (and with `?xray=true`,
// to know whether it has subgraphs: then a checkbox expands them), drawn by graph.ts in a box
// that scrolls inside itself (a wide graph never widens the page), with the nodes' states of
// a run painted on it and said in words under it.

import { call, errorText } from "./api";
import { errorBox, h, replace, uid } from "./dom";
import { drawGraph, paintStates } from "./graph";
import { type ApiGraph, type GraphShape, nodesWithSubgraphs, shapeOf } from "./graph_shape";
import type { NodeState } from "./run_progress";

interface Shapes {
  plain: GraphShape;
  /** Null when the graph has no subgraph (or its xray drawing could not be read). */
  xray: GraphShape | null;
}

/** How the words under the graph name each state, in the order they are listed. */
const STATE_WORDS: [NodeState, string][] = [
  ["running", "Running"],
  ["interrupted", "Stopped at an interrupt"],
  ["error", "Failed"],
  ["done", "Done"],
];

export class GraphPanel {
  readonly root = h("div", { class: "graph-panel" });
  private xray = h("input", { type: "checkbox", id: uid("graph-xray") });
  private xrayField = h("label", { class: "graph-xray", hidden: true }, this.xray, " Show subgraphs");
  private box = h("div", { class: "graph-scroll", tabindex: "0", role: "group", "aria-label": "Graph" });
  private words = h("p", { class: "graph-progress", id: uid("graph-progress") });
  private shapes = new Map<string, Promise<Shapes>>();
  private picture: SVGSVGElement | null = null;
  private states: ReadonlyMap<string, NodeState> = new Map();
  private shown: { assistantId: string; graphId: string } | null = null;
  /** Counts draws: only the newest may put its picture in the box. */
  private drawing = 0;

  /** `live`: the panel shows a run's progress (the chat); else only the graph. */
  constructor(private readonly live: boolean) {
    this.xray.addEventListener("change", () => void this.draw());
    replace(this.root, this.xrayField, this.box, live ? this.words : null);
    this.describe();
  }

  /** Draw the graph of `assistantId` (read once per panel), titled by its graph id. */
  async show(assistantId: string, graphId: string): Promise<void> {
    if (this.shown?.assistantId === assistantId && this.picture) return;
    this.shown = { assistantId, graphId };
    await this.draw();
  }

  /** Paint the run's node states on the graph, and say them in words. */
  paint(states: ReadonlyMap<string, NodeState>): void {
    this.states = new Map(states);
    if (this.picture) paintStates(this.picture, this.states);
    this.describe();
    this.reveal();
  }

  /** Keep the node the run is in (running, else stopped or failed) in sight: a graph taller
   * than its box (on a phone) scrolls the box, never the page, to it. */
  private reveal(): void {
    const node = ["running", "interrupted", "error"]
      .map((state) => this.picture?.querySelector<SVGGElement>(`g[data-node][data-state="${state}"]`))
      .find(Boolean);
    const view = this.box.getBoundingClientRect();
    if (!node || !view.height) return;
    const at = node.getBoundingClientRect();
    if (at.top >= view.top && at.bottom <= view.bottom && at.left >= view.left && at.right <= view.right) return;
    this.box.scrollBy({
      top: at.top - view.top - (view.height - at.height) / 2,
      left: at.left - view.left - (view.width - at.width) / 2,
    });
  }

  private async draw(): Promise<void> {
    if (!this.shown) return;
    const { assistantId, graphId } = this.shown;
    const ticket = ++this.drawing;
    if (!this.picture) replace(this.box, h("p", { class: "graph-loading" }, "Loading the graph…"));
    try {
      const shapes = await this.read(assistantId);
      if (ticket !== this.drawing) return;
      this.xrayField.hidden = !shapes.xray;
      const expanded = Boolean(shapes.xray && this.xray.checked);
      const shape = expanded && shapes.xray ? shapes.xray : shapes.plain;
      const picture = await drawGraph(shape, {
        title: `Graph of ${graphId}`,
        subgraphs: expanded || !shapes.xray ? undefined : nodesWithSubgraphs(shapes.xray),
        describedBy: this.live ? this.words.id : undefined,
      });
      if (ticket !== this.drawing) return;
      paintStates(picture, this.states);
      this.picture = picture;
      this.root.dataset.xray = String(expanded);
      replace(this.box, picture);
      this.reveal();
    } catch (err) {
      if (ticket !== this.drawing) return;
      this.picture = null;
      replace(this.box, errorBox(`Could not draw the graph: ${errorText(err)}`));
    }
  }

  /** The graph and its xray drawing, read together (the second only says whether there are
   * subgraphs, and how they look expanded). */
  private read(assistantId: string): Promise<Shapes> {
    let shapes = this.shapes.get(assistantId);
    if (!shapes) {
      shapes = Promise.all([
        call((c) => c.assistants.getGraph(assistantId)),
        call((c) => c.assistants.getGraph(assistantId, { xray: true })).catch(() => null),
      ]).then(([plain, xray]) => {
        const xrayShape = xray ? shapeOf(xray as ApiGraph, true) : null;
        return { plain: shapeOf(plain as ApiGraph, false), xray: xrayShape?.clusters.length ? xrayShape : null };
      });
      // A failed read is tried again on the next draw.
      shapes.catch(() => this.shapes.delete(assistantId));
      this.shapes.set(assistantId, shapes);
    }
    return shapes;
  }

  private describe(): void {
    if (!this.live) return;
    const parts = STATE_WORDS.flatMap(([state, word]) => {
      const nodes = [...this.states].filter(([, s]) => s === state).map(([node]) => node);
      return nodes.length ? [`${word}: ${nodes.join(", ")}`] : [];
    });
    this.words.textContent = parts.length ? `${parts.join(". ")}.` : "Nodes are marked as a run goes through them.";
  }
}
