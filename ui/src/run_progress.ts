// Which node of the graph a run is in: from the run's stream (`tasks` events say when a node
// starts and how it ended; `updates` say a node finished, for a run streamed without `tasks`)
// and, once the run is over, from the thread's state (the node an interrupt stopped it in).
// Only the parent graph's nodes are tracked: the chat does not stream subgraphs, so a node
// that runs a subgraph is marked as a whole.

export type NodeState = "idle" | "running" | "done" | "interrupted" | "error";

/** A `tasks` event: a task starting (`input`, `triggers`) or its result. */
interface TaskEvent {
  id?: string;
  name?: string;
  error?: unknown;
  interrupts?: unknown[];
  result?: unknown;
}

/** What the chat reads of a thread's state here. */
export interface PendingState {
  next?: string[];
  tasks?: { name?: string; interrupts?: unknown[] }[];
}

const isResult = (task: TaskEvent) => "result" in task || "error" in task || "interrupts" in task;

export class RunProgress {
  /** The tasks started and not yet ended, task id to node name. */
  private active = new Map<string, string>();
  private states = new Map<string, NodeState>();

  /** `onChange` gets every node's state (absent: idle) whenever one changes. */
  constructor(private readonly onChange: (states: ReadonlyMap<string, NodeState>) => void) {}

  get current(): ReadonlyMap<string, NodeState> {
    return this.states;
  }

  /** A new run (or another thread): nothing is marked. */
  reset(): void {
    this.active.clear();
    this.states.clear();
    this.onChange(this.states);
  }

  /** A run resuming the interrupted one: the nodes it stopped in run again; what was done
   * stays marked, so the whole way through the graph shows. */
  resumed(): void {
    this.active.clear();
    for (const [node, state] of this.states) if (state !== "done") this.states.delete(node);
    this.onChange(this.states);
  }

  /** An event of the run's stream (its name without a namespace, its data). */
  onEvent(event: string, data: unknown): void {
    if (event === "tasks") this.onTask(data as TaskEvent);
    else if (event === "debug") {
      // The `debug` mode wraps the same task events: {type: "task" | "task_result", payload}.
      const { type, payload } = (data ?? {}) as { type?: string; payload?: TaskEvent };
      if ((type === "task" || type === "task_result") && payload) this.onTask(payload);
    } else if (event === "updates") this.onUpdates(data as Record<string, unknown> | null);
    else if (event === "error") this.stoppedRunning("error");
  }

  private onTask(task: TaskEvent): void {
    if (!task?.name || !task.id) return;
    if (!isResult(task)) {
      this.active.set(task.id, task.name);
      this.set(task.name, "running");
      return;
    }
    this.active.delete(task.id);
    if (task.error) this.set(task.name, "error");
    else if (task.interrupts?.length) this.set(task.name, "interrupted");
    // Another task of the same node (a Send fan-out) may still run.
    else if (![...this.active.values()].includes(task.name)) this.set(task.name, "done");
  }

  /** A node's output: it is done, unless a task of it still runs (its result, in `tasks`,
   * comes right after this). `__interrupt__` names no node: the task's result or the
   * thread's state says where the run stopped. */
  private onUpdates(update: Record<string, unknown> | null): void {
    if (!update || typeof update !== "object") return;
    const running = new Set(this.active.values());
    for (const node of Object.keys(update)) {
      if (!node.startsWith("__") && !running.has(node)) this.set(node, "done");
    }
  }

  /** The thread after the run: the nodes it waits in when interrupted (the tasks holding
   * the interrupts, else the next nodes: an `interrupt_before`). A run that is over leaves
   * no node running: failed ones are marked, unfinished ones (a cancel) cleared. */
  settle(state: PendingState, threadStatus: string): void {
    if (threadStatus === "busy") return;
    this.active.clear();
    this.stoppedRunning(threadStatus === "error" ? "error" : "idle");
    if (threadStatus === "interrupted") {
      const holding = (state.tasks ?? []).filter((t) => t.interrupts?.length && t.name).map((t) => t.name as string);
      for (const node of holding.length ? holding : (state.next ?? [])) this.states.set(node, "interrupted");
    }
    this.onChange(this.states);
  }

  private stoppedRunning(to: NodeState): void {
    for (const [node, state] of this.states) {
      if (state !== "running") continue;
      if (to === "idle") this.states.delete(node);
      else this.states.set(node, to);
    }
    this.onChange(this.states);
  }

  private set(node: string, state: NodeState): void {
    if (this.states.get(node) === state) return;
    this.states.set(node, state);
    this.onChange(this.states);
  }
}
