// A run's trace: what it did inside, from the server's record of it
// (`GET /threads/{thread}/runs/{run}/trace`): a timeline of its nodes, model calls (model,
// latency, first token, tokens, the prompt and the reply) and tool calls (arguments, result,
// duration); then the checkpoints it wrote, each with what it changed in the state and forms
// to fork or edit from there. A run still going is read again every second.

import type { Run, Thread, ThreadState } from "@langchain/langgraph-sdk";
import { call, errorText, getJson } from "./api";
import { editStateForm, forkForm } from "./checkpoints";
import { announce, errorBox, h, pre, replace } from "./dom";
import { textOf } from "./messages";
import { type Change, stateDiff } from "./state_diff";
import { traceHref } from "./trace_link";

interface Tokens {
  input: number;
  output: number;
  cached: number;
}

interface TraceMessage {
  type: string;
  content: unknown;
  tool_calls?: { name: string; args: unknown }[];
}

export interface Span {
  id: string;
  parent: string | null;
  kind: "node" | "model" | "tool";
  name: string;
  node: string | null;
  step: number | null;
  start_ms: number;
  end_ms: number | null;
  status: "running" | "success" | "error" | "interrupted";
  first_token_ms?: number | null;
  tokens?: Tokens;
  prompt?: { messages: TraceMessage[]; tools?: string[]; tool_choice?: unknown };
  reply?: TraceMessage;
  args?: unknown;
  result?: unknown;
  error?: { error: string; message: string };
}

export interface RunTrace {
  run_id: string;
  thread_id: string;
  status: string;
  complete: boolean;
  started_at: string | null;
  duration_ms: number | null;
  dropped: number;
  spans: Span[];
}

const REFRESH_MS = 1000;

/** "850 ms", "1.24 s", "2 min 5 s". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** How deep each span sits under the spans that contain it. */
function depths(spans: Span[]): Map<string, number> {
  const byId = new Map(spans.map((s) => [s.id, s]));
  const depth = new Map<string, number>();
  const of = (span: Span): number => {
    const known = depth.get(span.id);
    if (known !== undefined) return known;
    const parent = span.parent ? byId.get(span.parent) : undefined;
    const d = parent ? of(parent) + 1 : 0;
    depth.set(span.id, d);
    return d;
  };
  spans.forEach(of);
  return depth;
}

/** A message's text, then its tool calls ("→ name(args)"), one a line. */
function messageText(message: TraceMessage): string {
  const calls = (message.tool_calls ?? []).map((c) => `→ ${c.name}(${JSON.stringify(c.args)})`);
  return [textOf(message.content), ...calls].filter(Boolean).join("\n");
}

function messageBlock(message: TraceMessage): HTMLElement {
  return h(
    "div",
    { class: "trace-message", "data-type": message.type },
    h("span", { class: "trace-role" }, message.type),
    h("pre", { class: "json", tabindex: "0" }, messageText(message)),
  );
}

/** What a span's details show: the prompt and reply of a model call, a tool's arguments and
 * result, an error. */
function spanDetails(span: Span): HTMLElement | null {
  const parts: (HTMLElement | null)[] = [];
  if (span.kind === "model") {
    const tools = span.prompt?.tools?.length ? ` (tools: ${span.prompt.tools.join(", ")})` : "";
    parts.push(h("h5", {}, `Prompt${tools}`), ...(span.prompt?.messages ?? []).map(messageBlock));
    if (span.reply) parts.push(h("h5", {}, "Reply"), messageBlock(span.reply));
  } else if (span.kind === "tool") {
    parts.push(h("h5", {}, "Arguments"), pre(span.args ?? null, `Arguments of ${span.name}`));
    if (span.result !== undefined) parts.push(h("h5", {}, "Result"), pre(span.result, `Result of ${span.name}`));
  }
  if (span.error) parts.push(errorBox(`${span.error.error}: ${span.error.message}`));
  if (!parts.length) return null;
  const summary = span.kind === "model" ? "Prompt and reply" : span.kind === "tool" ? "Arguments and result" : "Error";
  return h("details", { class: "span-details" }, h("summary", {}, summary), ...parts);
}

function spanFacts(span: Span, totalMs: number): string {
  const end = span.end_ms ?? totalMs;
  const facts = [span.end_ms === null ? `running for ${duration(end - span.start_ms)}` : duration(end - span.start_ms)];
  if (span.kind === "node" && span.step !== null) facts.unshift(`step ${span.step}`);
  if (span.kind === "model") {
    if (span.first_token_ms != null) facts.push(`first token ${duration(span.first_token_ms - span.start_ms)}`);
    if (span.tokens) {
      const cached = span.tokens.cached ? ` (${span.tokens.cached} cached)` : "";
      facts.push(`${span.tokens.input} tokens in${cached}, ${span.tokens.output} out`);
    }
  }
  if (span.status === "error" || span.status === "interrupted") facts.push(span.status);
  return facts.join(" · ");
}

/** The timeline: one row per span, indented under its node, with a bar placing it in the run. */
export function timeline(trace: RunTrace): HTMLElement {
  const total = Math.max(trace.duration_ms ?? 0, ...trace.spans.map((s) => s.end_ms ?? s.start_ms), 1);
  const depth = depths(trace.spans);
  return h(
    "ol",
    { class: "trace-spans", "aria-label": "Timeline" },
    trace.spans.map((span) => {
      const left = (span.start_ms / total) * 100;
      const width = Math.max((((span.end_ms ?? total) - span.start_ms) / total) * 100, 0.5);
      const bar = h("span", { class: "bar-fill" });
      bar.style.left = `${left}%`;
      bar.style.width = `${Math.min(width, 100 - left)}%`;
      const row = h(
        "li",
        { class: "span", "data-kind": span.kind, "data-status": span.status, "data-name": span.name },
        h(
          "div",
          { class: "span-row" },
          h("span", { class: "span-kind" }, span.kind),
          h("span", { class: "span-name" }, span.name),
          h("span", { class: "span-facts" }, spanFacts(span, total)),
          h("span", { class: "bar", "aria-hidden": "true" }, bar),
        ),
        spanDetails(span),
      );
      row.style.setProperty("--depth", String(depth.get(span.id) ?? 0));
      return row;
    }),
  );
}

/** A run that stopped at an interrupt ended `success` (as on LangGraph Platform): say where. */
function endedStatus(trace: RunTrace): string {
  const stopped = trace.spans.some((s) => s.status === "interrupted");
  return trace.status === "success" && stopped ? "success, stopped at an interrupt" : trace.status;
}

/** Totals of a trace: model calls with their tokens and time, tool calls. */
function summary(trace: RunTrace): HTMLElement {
  const models = trace.spans.filter((s) => s.kind === "model");
  const tools = trace.spans.filter((s) => s.kind === "tool");
  const sum = (key: keyof Tokens) => models.reduce((n, s) => n + (s.tokens?.[key] ?? 0), 0);
  const modelMs = models.reduce((n, s) => n + ((s.end_ms ?? s.start_ms) - s.start_ms), 0);
  const item = (term: string, value: string) => [h("dt", {}, term), h("dd", {}, value)];
  return h(
    "dl",
    { class: "trace-summary" },
    item("Status", trace.complete ? endedStatus(trace) : `${trace.status} (live)`),
    item("Duration", trace.duration_ms === null ? "-" : duration(trace.duration_ms)),
    item(
      "Model calls",
      models.length
        ? `${models.length} in ${duration(modelMs)}: ${sum("input")} tokens in (${sum("cached")} cached), ${sum("output")} out`
        : "none",
    ),
    item("Tool calls", String(tools.length)),
    trace.started_at ? item("Started", new Date(trace.started_at).toLocaleString()) : null,
  );
}

function changeItem(change: Change): HTMLElement {
  const show = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));
  const clip = (text: string) => (text.length > 240 ? `${text.slice(0, 240)}…` : text);
  switch (change.kind) {
    case "appended":
      return h(
        "li",
        { "data-change": "appended" },
        h("code", {}, change.key),
        ` + ${change.items.length} item${change.items.length === 1 ? "" : "s"}: `,
        change.items.map((item) => {
          const msg = item as TraceMessage | null;
          return h("span", { class: "diff-item" }, clip(msg?.type ? `${msg.type}: ${messageText(msg)}` : show(item)));
        }),
      );
    case "changed":
      return h("li", { "data-change": "changed" }, h("code", {}, change.key), ` ${clip(show(change.before))} → ${clip(show(change.after))}`);
    default:
      return h("li", { "data-change": change.kind }, h("code", {}, change.key), ` ${change.kind}: ${clip(show(change.value))}`);
  }
}

export class TraceView {
  readonly root = h("section", { class: "trace-view", "aria-labelledby": "trace-title" });
  private runSelect = h("select", { id: "trace-run" });
  private links = h("p", { class: "trace-links" });
  private body = h("div", { class: "trace-body" });
  private steps = h("div", { class: "trace-steps" });
  private errors = h("div", {});
  private threadId: string | null = null;
  private timer: number | undefined;
  /** Counts loads: a refresh of a run no longer shown stops. */
  private generation = 0;

  constructor() {
    this.runSelect.addEventListener("change", () => {
      if (this.threadId) location.hash = traceHref(this.threadId, this.runSelect.value);
    });
    replace(
      this.root,
      h("h2", { id: "trace-title" }, "Run trace"),
      h("div", { class: "trace-head" }, h("label", { for: "trace-run" }, "Run"), this.runSelect, this.links),
      this.errors,
      this.body,
      this.steps,
    );
  }

  async load(): Promise<void> {
    window.clearTimeout(this.timer);
    const generation = ++this.generation;
    const params = new URLSearchParams(location.hash.split("?")[1] ?? "");
    const threadId = params.get("thread");
    replace(this.errors);
    if (!threadId) {
      replace(this.body, h("p", {}, "Open a run's trace from a thread (Threads) or from the chat."));
      replace(this.steps);
      return;
    }
    try {
      const runs = await call((c) => c.runs.list(threadId, { limit: 50 }));
      if (generation !== this.generation) return;
      const runId = params.get("run") ?? runs[0]?.run_id ?? null;
      this.threadId = threadId;
      this.showRuns(threadId, runs, runId);
      if (!runId) {
        replace(this.body, h("p", {}, "This thread has no run yet."));
        replace(this.steps);
        return;
      }
      await this.show(threadId, runId, generation);
    } catch (err) {
      if (generation === this.generation) this.errors.append(errorBox(errorText(err)));
    }
  }

  private showRuns(threadId: string, runs: Run[], runId: string | null): void {
    const listed = runs.some((r) => r.run_id === runId);
    replace(
      this.runSelect,
      runs.map((r) =>
        h("option", { value: r.run_id, selected: r.run_id === runId }, `${r.run_id.slice(0, 8)} · ${r.status} · ${new Date(r.created_at).toLocaleTimeString()}`),
      ),
      !listed && runId ? h("option", { value: runId, selected: true }, runId.slice(0, 8)) : null,
    );
    replace(
      this.links,
      h("a", { href: `#/chat?thread=${encodeURIComponent(threadId)}` }, "Open in chat"),
      " · ",
      h("a", { href: `#/threads?thread=${encodeURIComponent(threadId)}` }, "Thread's checkpoints"),
    );
  }

  private async show(threadId: string, runId: string, generation: number): Promise<void> {
    const trace = await call(() => getJson<RunTrace>(`/threads/${threadId}/runs/${runId}/trace`));
    if (generation !== this.generation) return;
    const openDetails = new Set(
      [...this.body.querySelectorAll<HTMLDetailsElement>("li.span")].filter((li) => li.querySelector("details")?.open).map((li) => li.dataset.index),
    );
    const spans = timeline(trace);
    spans.querySelectorAll<HTMLLIElement>("li.span").forEach((li, i) => {
      li.dataset.index = String(i);
      if (openDetails.has(String(i))) li.querySelector("details")?.setAttribute("open", "");
    });
    replace(
      this.body,
      summary(trace),
      h("h3", {}, "Timeline"),
      trace.spans.length
        ? spans
        : h("p", {}, trace.complete ? "No node, model or tool call was recorded for this run." : "Nothing recorded yet: the run executes in a worker, which stores its trace as it goes."),
      trace.dropped ? h("p", { class: "hint" }, `${trace.dropped} more spans were not kept.`) : null,
    );
    this.root.dataset.complete = String(trace.complete);
    if (!trace.complete) {
      this.timer = window.setTimeout(() => {
        if (generation === this.generation) void this.show(threadId, runId, generation).catch(() => undefined);
      }, REFRESH_MS);
      return;
    }
    await this.showSteps(threadId, runId, generation);
    announce(`Trace of run ${runId.slice(0, 8)}: ${trace.spans.length} spans`);
  }

  /** The checkpoints the run wrote, oldest first, each with what it changed. */
  private async showSteps(threadId: string, runId: string, generation: number): Promise<void> {
    const [thread, history] = await Promise.all([
      call((c) => c.threads.get(threadId)),
      call((c) => c.threads.getHistory(threadId, { limit: 100 })),
    ]);
    if (generation !== this.generation) return;
    const byId = new Map(history.map((cp) => [cp.checkpoint?.checkpoint_id ?? "", cp]));
    const mine = history.filter((cp) => (cp.metadata as Record<string, unknown> | null)?.run_id === runId).reverse();
    const reload = () => this.load();
    replace(
      this.steps,
      h("h3", {}, "Steps"),
      mine.length
        ? h(
            "ol",
            { class: "trace-checkpoints" },
            mine.map((cp) => this.stepItem(thread, cp, byId, reload)),
          )
        : h("p", {}, "The run wrote no checkpoint (a stateless run, or its thread was pruned)."),
    );
  }

  private stepItem(thread: Thread, cp: ThreadState, byId: Map<string, ThreadState>, reload: () => Promise<void>): HTMLElement {
    const meta = (cp.metadata ?? {}) as Record<string, unknown>;
    const parent = cp.parent_checkpoint?.checkpoint_id ? byId.get(cp.parent_checkpoint.checkpoint_id) : undefined;
    const changes = stateDiff((parent?.values ?? {}) as Record<string, unknown>, (cp.values ?? {}) as Record<string, unknown>);
    const label = `Step ${String(meta.step ?? "?")} · ${String(meta.source ?? "")}${cp.next.length ? ` · next ${cp.next.join(", ")}` : ""}`;
    return h(
      "li",
      { class: "trace-step", "data-checkpoint": cp.checkpoint?.checkpoint_id ?? "" },
      h("span", { class: "step-label" }, label),
      changes.length ? h("ul", { class: "diff" }, changes.map(changeItem)) : h("p", { class: "hint" }, "No change to the state."),
      h(
        "details",
        { class: "step-actions" },
        h("summary", {}, "State, fork or edit from here"),
        pre(cp.values ?? {}, "State values"),
        forkForm(thread, cp, reload),
        editStateForm(thread, cp, reload),
      ),
    );
  }
}
