// Where each node, subgraph box and edge of a graph goes, computed by dagre (@dagrejs/dagre).
// This module is the only one that imports dagre, and graph.ts loads it with a dynamic
// import: the layout library is a chunk of its own, fetched the first time a graph is drawn,
// never before the page's first paint.

import dagre from "@dagrejs/dagre";
import type { GraphShape } from "./graph_shape";

export interface Point {
  x: number;
  y: number;
}

/** A box with its top-left corner at (x, y). */
export interface Box extends Point {
  width: number;
  height: number;
}

export interface PlacedNode extends Box {
  id: string;
  label: string;
}

export interface PlacedCluster extends Box {
  id: string;
  label: string;
}

export interface PlacedEdge {
  source: string;
  target: string;
  conditional: boolean;
  points: Point[];
}

export interface Layout {
  width: number;
  height: number;
  nodes: PlacedNode[];
  clusters: PlacedCluster[];
  edges: PlacedEdge[];
}

/** The size a node needs for its label: measured by `measure`, plus room for the state mark. */
export interface Sizing {
  measure: (label: string) => number;
  nodeHeight: number;
  /** Horizontal room besides the label: padding on both sides and the state mark. */
  padding: number;
}

const MARGIN = 12;

/** Lay `shape` out top to bottom (narrow enough for a phone): nodes in ranks, clusters
 * around the nodes of each subgraph, edges as polylines through dagre's bend points. */
export function layoutGraph(shape: GraphShape, sizing: Sizing): Layout {
  const g = new dagre.graphlib.Graph({ directed: true, multigraph: true, compound: true });
  g.setGraph({ rankdir: "TB", nodesep: 28, ranksep: 40, edgesep: 14, marginx: MARGIN, marginy: MARGIN });
  g.setDefaultEdgeLabel(() => ({}));
  // A cluster's box is dagre's: its border nodes keep about 20 px around the nodes inside,
  // room for the subgraph's name drawn on the top border.
  for (const cluster of shape.clusters) g.setNode(cluster.id, { width: 0, height: 0, label: cluster.label });
  for (const cluster of shape.clusters) if (cluster.parent) g.setParent(cluster.id, cluster.parent);
  for (const node of shape.nodes) {
    const width = Math.max(72, Math.ceil(sizing.measure(node.label)) + sizing.padding);
    g.setNode(node.id, { width, height: sizing.nodeHeight, label: node.label });
    if (node.parent) g.setParent(node.id, node.parent);
  }
  shape.edges.forEach((edge, i) => {
    g.setEdge(edge.source, edge.target, { minlen: 1 }, `e${i}`);
  });
  dagre.layout(g);

  const graph = g.graph();
  const nodes: PlacedNode[] = shape.nodes.map((node) => {
    const placed = g.node(node.id);
    return { id: node.id, label: node.label, ...topLeft(placed.x ?? 0, placed.y ?? 0, placed.width, placed.height) };
  });
  const clusters: PlacedCluster[] = shape.clusters.map((cluster) => {
    const placed = g.node(cluster.id);
    return { id: cluster.id, label: cluster.label, ...topLeft(placed.x ?? 0, placed.y ?? 0, placed.width, placed.height) };
  });
  const edges: PlacedEdge[] = shape.edges.map((edge, i) => ({
    source: edge.source,
    target: edge.target,
    conditional: edge.conditional,
    points: g.edge(edge.source, edge.target, `e${i}`)?.points ?? [],
  }));
  return { width: Math.ceil(graph.width ?? 0), height: Math.ceil(graph.height ?? 0), nodes, clusters, edges };
}

/** dagre gives a box's centre; SVG draws a rect from its top-left corner. */
function topLeft(cx: number, cy: number, width: number, height: number): Box {
  return { x: cx - width / 2, y: cy - height / 2, width, height };
}
