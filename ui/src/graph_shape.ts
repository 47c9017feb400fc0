// The graph of /assistants/{id}/graph as the drawing needs it: ids as strings, and, for a
// graph read with `?xray=true`, the nodes of each subgraph (LangGraph names them
// "parent:child", the parent node itself left out) grouped in a cluster named after the
// parent node, so the drawing can box them and a run's progress can mark the box.

/** The JSON of /assistants/{id}/graph (the SDK's AssistantGraph, the parts drawn). */
export interface ApiGraph {
  nodes: { id: string | number; name?: string }[];
  edges: { source: string | number; target: string | number; conditional?: boolean }[];
}

export interface ShapeNode {
  id: string;
  /** What the node shows: its id, without the subgraph's prefix inside a cluster. */
  label: string;
  /** The cluster it is drawn in, if any. */
  parent?: string;
}

/** A subgraph drawn expanded: its id is the parent graph's node that runs it. */
export interface ShapeCluster {
  id: string;
  label: string;
  parent?: string;
}

export interface ShapeEdge {
  source: string;
  target: string;
  conditional: boolean;
}

export interface GraphShape {
  nodes: ShapeNode[];
  clusters: ShapeCluster[];
  edges: ShapeEdge[];
}

/** How LangGraph's xray drawing joins a subgraph's node to the node that runs it. */
const SEPARATOR = ":";

/** `graph` as nodes, clusters (only when `xray`: the prefixes of subgraph nodes that are
 * not nodes themselves) and the edges between drawn nodes. */
export function shapeOf(graph: ApiGraph, xray: boolean): GraphShape {
  const ids = graph.nodes.map((n) => String(n.id));
  const known = new Set(ids);
  const clusterIds = new Set<string>();
  if (xray) {
    for (const id of ids) {
      const parts = id.split(SEPARATOR);
      for (let i = 1; i < parts.length; i++) {
        const prefix = parts.slice(0, i).join(SEPARATOR);
        if (!known.has(prefix)) clusterIds.add(prefix);
      }
    }
  }
  /** The innermost cluster `id` is drawn in: its longest prefix that is a cluster. */
  const parentOf = (id: string): string | undefined => {
    const parts = id.split(SEPARATOR);
    for (let i = parts.length - 1; i >= 1; i--) {
      const prefix = parts.slice(0, i).join(SEPARATOR);
      if (clusterIds.has(prefix)) return prefix;
    }
    return undefined;
  };
  const labelIn = (id: string, parent: string | undefined) => (parent ? id.slice(parent.length + 1) : id);
  const nodes = ids.map((id) => {
    const parent = parentOf(id);
    return { id, label: labelIn(id, parent), parent };
  });
  const clusters = [...clusterIds].map((id) => {
    const parent = parentOf(id);
    return { id, label: labelIn(id, parent), parent };
  });
  const edges = graph.edges
    .map((e) => ({ source: String(e.source), target: String(e.target), conditional: Boolean(e.conditional) }))
    .filter((e) => known.has(e.source) && known.has(e.target));
  return { nodes, clusters, edges };
}

/** The nodes of the parent graph that run a subgraph: the outermost clusters of an xray shape. */
export function nodesWithSubgraphs(xrayShape: GraphShape): Set<string> {
  return new Set(xrayShape.clusters.filter((c) => !c.parent).map((c) => c.id));
}
