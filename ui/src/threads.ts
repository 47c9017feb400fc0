// Threads: search by metadata and status, a thread's checkpoints (all branches), its state at
// any checkpoint, and "fork from here": a run from that checkpoint, which starts a new branch.

import type { Thread, ThreadState } from "@langchain/langgraph-sdk";
import { call, errorText } from "./api";
import { editStateForm, forkForm } from "./checkpoints";
import { announce, errorBox, field, h, pre, replace } from "./dom";
import { traceHref } from "./trace_link";

type Checkpoint = ThreadState;

/** Which checkpoints start a branch: those whose parent has more than one child. */
export function branchStarts(history: Checkpoint[]): Set<string> {
  const children = new Map<string, string[]>();
  for (const cp of history) {
    const parent = cp.parent_checkpoint?.checkpoint_id;
    const id = cp.checkpoint?.checkpoint_id;
    if (!parent || !id) continue;
    children.set(parent, [...(children.get(parent) ?? []), id]);
  }
  const starts = new Set<string>();
  for (const ids of children.values()) {
    if (ids.length > 1) ids.slice(0, -1).forEach((id) => starts.add(id)); // newest first: all but the original
  }
  return starts;
}

export class ThreadsView {
  readonly root = h("section", { class: "threads", "aria-labelledby": "threads-title" });
  private metadata = h("input", { type: "text", placeholder: '{"graph_id": "echo_agent"}', class: "mono" });
  private statusSelect = h(
    "select",
    {},
    ["", "idle", "busy", "interrupted", "error"].map((s) => h("option", { value: s }, s || "any")),
  );
  private list = h("ul", { class: "thread-list", "aria-label": "Threads" });
  private detail = h("div", { class: "thread-detail" });
  private errors = h("div", {});

  constructor() {
    const form = h(
      "form",
      { class: "search", role: "search", "aria-label": "Search threads" },
      field("Metadata (JSON)", this.metadata),
      field("Status", this.statusSelect),
      h("div", { class: "actions" }, h("button", { type: "submit" }, "Search")),
    );
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      void this.search();
    });
    replace(
      this.root,
      h("h2", { id: "threads-title" }, "Threads"),
      form,
      this.errors,
      h("div", { class: "split" }, h("div", { class: "pane" }, this.list), h("div", { class: "pane wide" }, this.detail)),
    );
  }

  async load(): Promise<void> {
    await this.search();
    const wanted = new URLSearchParams(location.hash.split("?")[1] ?? "").get("thread");
    if (wanted) await this.open(wanted);
  }

  private async search(): Promise<void> {
    replace(this.errors);
    let metadata: Record<string, unknown> | undefined;
    if (this.metadata.value.trim()) {
      try {
        metadata = JSON.parse(this.metadata.value);
      } catch {
        this.errors.append(errorBox("Metadata must be a JSON object."));
        return;
      }
    }
    try {
      const threads = await call((c) =>
        c.threads.search({
          metadata,
          status: (this.statusSelect.value || undefined) as Thread["status"] | undefined,
          limit: 50,
          sortBy: "updated_at",
          sortOrder: "desc",
        }),
      );
      replace(
        this.list,
        threads.length ? null : h("li", {}, "No threads match."),
        threads.map((t) =>
          h(
            "li",
            {},
            h(
              "button",
              { type: "button", class: "link", onclick: () => void this.open(t.thread_id) },
              `${t.thread_id.slice(0, 8)} · ${t.status} · ${String((t.metadata as Record<string, unknown>)?.graph_id ?? "")}`,
            ),
          ),
        ),
      );
      announce(`${threads.length} threads`);
    } catch (err) {
      this.errors.append(errorBox(errorText(err)));
    }
  }

  /** A thread's checkpoints, newest first, each openable, with branch starts marked. */
  async open(threadId: string): Promise<void> {
    replace(this.errors);
    try {
      const [thread, history, runs] = await Promise.all([
        call((c) => c.threads.get(threadId)),
        call((c) => c.threads.getHistory(threadId, { limit: 100 })),
        call((c) => c.runs.list(threadId, { limit: 20 })),
      ]);
      const branches = branchStarts(history);
      const state = h("div", { class: "checkpoint-state" });
      const items = history.map((cp, i) => {
        const id = cp.checkpoint?.checkpoint_id ?? "";
        const meta = (cp.metadata ?? {}) as Record<string, unknown>;
        const label = `Step ${String(meta.step ?? "?")} · ${String(meta.source ?? "")}${cp.next.length ? ` · next ${cp.next.join(", ")}` : ""}`;
        return h(
          "li",
          { class: branches.has(id) ? "branch" : "", "data-checkpoint": id },
          h(
            "button",
            {
              type: "button",
              class: "link",
              onclick: () => this.showCheckpoint(state, thread, cp),
              "aria-label": `${label}${branches.has(id) ? ", starts a branch" : ""}${i === 0 ? ", latest" : ""}`,
            },
            label,
          ),
          branches.has(id) ? h("span", { class: "badge" }, "branch") : null,
          h("code", {}, ` ${id.slice(0, 13)}`),
        );
      });
      replace(
        this.detail,
        h("h3", {}, `Thread ${threadId}`),
        h("p", {}, `Status: ${thread.status}`),
        h("h4", {}, "Runs (newest first)"),
        runs.length
          ? h(
              "ul",
              { class: "run-list" },
              runs.map((run) =>
                h(
                  "li",
                  {},
                  h("a", { href: traceHref(threadId, run.run_id) }, `Trace of run ${run.run_id.slice(0, 8)}`),
                  ` · ${run.status} · ${new Date(run.created_at).toLocaleString()}`,
                ),
              ),
            )
          : h("p", {}, "No runs."),
        h("h4", {}, "Checkpoints (newest first)"),
        h("ol", { class: "history", reversed: true }, items),
        state,
      );
      if (history[0]) this.showCheckpoint(state, thread, history[0]);
    } catch (err) {
      this.errors.append(errorBox(errorText(err)));
    }
  }

  private showCheckpoint(box: HTMLElement, thread: Thread, cp: Checkpoint): void {
    const id = cp.checkpoint?.checkpoint_id ?? "";
    const reopen = () => this.open(thread.thread_id);
    replace(
      box,
      h("h4", {}, `State at checkpoint ${id.slice(0, 13)}`),
      pre(cp.values ?? {}, "State values"),
      forkForm(thread, cp, reopen),
      h("details", { class: "edit" }, h("summary", {}, "Edit state"), editStateForm(thread, cp, reopen)),
    );
  }
}
