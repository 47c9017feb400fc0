// Chat with any assistant: threads, streamed tokens (`messages-tuple`), tool calls folded,
// run status, cancel, errors in the page, interrupts as forms, and reconnect with
// Last-Event-ID when the connection drops mid-run.

import type { Assistant, Thread } from "@langchain/langgraph-sdk";
import { call, client, errorText } from "./api";
import { announce, errorBox, field, h, replace } from "./dom";
import { type Interrupt, interruptForms, pendingInterrupts } from "./interrupts";
import { fillMessage, type Message, renderMessage } from "./messages";

// `custom` carries the server's stage messages ("loading local/... "), shown beside the status.
const STREAM_MODES = ["messages-tuple", "values", "updates", "custom"] as const;
const RECONNECT_ATTEMPTS = 5;

interface StreamPart {
  event: string;
  data: unknown;
  id?: string;
}

export class ChatView {
  readonly root = h("section", { class: "chat", "aria-labelledby": "chat-title" });
  private assistantSelect = h("select", { id: "assistant-select" });
  private threadSelect = h("select", { id: "thread-select" });
  private log = h("div", { class: "messages", role: "log", "aria-label": "Conversation" });
  private status = h("p", { class: "status", role: "status" }, "Idle");
  private stage = h("p", { class: "stage", "aria-live": "polite" });
  private interruptBox = h("div", { class: "interrupts" });
  private errors = h("div", {});
  private input = h("textarea", { id: "chat-input", rows: "3", placeholder: "Message" });
  private sendButton = h("button", { type: "submit" }, "Send");
  private cancelButton = h("button", { type: "button", class: "secondary", disabled: true }, "Cancel run");
  private assistants: Assistant[] = [];
  private threadId: string | null = null;
  private runId: string | null = null;
  private lastEventId: string | undefined;
  private cancelled = false;
  private chunks = new Map<string, Message>();

  constructor() {
    const form = h(
      "form",
      { class: "composer" },
      field("Message", this.input, "Enter sends; Shift+Enter adds a line."),
      h("div", { class: "actions" }, this.sendButton, this.cancelButton),
    );
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      void this.send();
    });
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey) {
        e.preventDefault();
        form.requestSubmit();
      }
    });
    this.cancelButton.addEventListener("click", () => void this.cancel());
    this.assistantSelect.addEventListener("change", () => void this.loadThreads());
    this.threadSelect.addEventListener("change", () => void this.openThread(this.threadSelect.value || null));
    replace(
      this.root,
      h("h2", { id: "chat-title" }, "Chat"),
      h(
        "div",
        { class: "pickers" },
        field("Assistant", this.assistantSelect),
        field("Thread", this.threadSelect),
      ),
      this.errors,
      this.log,
      this.interruptBox,
      this.status,
      this.stage,
      form,
    );
  }

  async load(): Promise<void> {
    try {
      this.assistants = await call((c) => c.assistants.search({ limit: 100 }));
    } catch (err) {
      this.showError(`Could not list assistants: ${errorText(err)}`);
      return;
    }
    const current = this.assistantSelect.value;
    replace(
      this.assistantSelect,
      this.assistants.map((a) =>
        h("option", { value: a.assistant_id }, a.name === a.graph_id ? a.graph_id : `${a.name} (${a.graph_id})`),
      ),
    );
    const wanted = new URLSearchParams(location.hash.split("?")[1] ?? "").get("assistant");
    // `?assistant=` names an assistant by id or name, else by graph (its first assistant).
    const pick =
      this.assistants.find((a) => a.assistant_id === wanted || a.name === wanted) ??
      this.assistants.find((a) => a.graph_id === wanted);
    if (pick) this.assistantSelect.value = pick.assistant_id;
    else if (current) this.assistantSelect.value = current;
    await this.loadThreads();
  }

  private async loadThreads(): Promise<void> {
    const assistant = this.assistant();
    let threads: Thread[] = [];
    if (assistant) {
      try {
        threads = await call((c) =>
          c.threads.search({ metadata: { graph_id: assistant.graph_id }, limit: 20, sortBy: "updated_at", sortOrder: "desc" }),
        );
      } catch (err) {
        this.showError(`Could not list threads: ${errorText(err)}`);
      }
    }
    replace(
      this.threadSelect,
      h("option", { value: "" }, "New thread"),
      threads.map((t) => h("option", { value: t.thread_id }, `${t.thread_id.slice(0, 8)} · ${t.status}`)),
    );
    await this.openThread(null);
  }

  private assistant(): Assistant | undefined {
    return this.assistants.find((a) => a.assistant_id === this.assistantSelect.value);
  }

  /** Show a thread's messages and any interrupt it waits on; null starts a new thread. */
  async openThread(threadId: string | null): Promise<void> {
    this.threadId = threadId;
    this.chunks.clear();
    replace(this.log);
    replace(this.interruptBox);
    replace(this.errors);
    this.setStatus("Idle");
    if (threadId && (await this.refresh()) === "busy") await this.follow(threadId);
  }

  /** A thread opened while a run works on it (a page reloaded mid-run, another tab's run):
  join that run's stream from its first event (`Last-Event-ID: -1`), so the reply being
  written appears whole and grows to its end. */
  private async follow(threadId: string): Promise<void> {
    let active;
    try {
      const runs = await call((c) => c.runs.list(threadId, { limit: 10 }));
      active = runs.find((r) => r.status === "running" || r.status === "pending");
    } catch (err) {
      this.showError(`Could not list the thread's runs: ${errorText(err)}`);
      return;
    }
    if (!active || this.threadId !== threadId) return;
    this.runId = active.run_id;
    this.lastEventId = "-1";
    this.cancelled = false;
    this.busy(true);
    this.setStatus("Running");
    try {
      await this.consume(
        client().runs.joinStream(threadId, active.run_id, { lastEventId: "-1", streamMode: [...STREAM_MODES] }),
      );
    } catch (err) {
      await this.recover(err);
    } finally {
      this.busy(false);
    }
    await this.refresh();
  }

  /** Redraw from the thread's stored state: the authoritative messages and interrupts.
  Gives the thread's status (undefined when it could not be read). */
  private async refresh(): Promise<string | undefined> {
    if (!this.threadId) return;
    const threadId = this.threadId;
    try {
      const [thread, state] = await Promise.all([
        call((c) => c.threads.get(threadId)),
        call((c) => c.threads.getState(threadId)),
      ]);
      const values = (state.values ?? {}) as { messages?: Message[] };
      this.chunks.clear();
      replace(this.log, (values.messages ?? []).map(renderMessage));
      this.log.scrollTop = this.log.scrollHeight;
      this.showInterrupts(pendingInterrupts(state as never));
      const done = this.cancelled ? "Cancelled" : "Done";
      this.setStatus(thread.status === "idle" ? done : thread.status);
      return thread.status;
    } catch (err) {
      this.showError(errorText(err));
      return undefined;
    }
  }

  private showInterrupts(interrupts: Interrupt[]): void {
    replace(
      this.interruptBox,
      interruptForms(interrupts, {
        resume: (resume) => void this.run({ command: { resume } }),
        // What Agent Chat UI's "Mark as Resolved" sends: the server ends the pending tasks.
        end: () => void this.run({ command: { goto: "__end__" } }),
      }),
    );
    if (interrupts.length) {
      announce("The run is waiting for your answer");
      this.interruptBox.querySelector<HTMLElement>("input, textarea, button")?.focus();
    }
  }

  private async send(): Promise<void> {
    const text = this.input.value.trim();
    if (!text) return;
    this.input.value = "";
    this.log.append(renderMessage({ type: "human", content: text }));
    await this.run({ input: { messages: [{ role: "user", content: text }] } });
  }

  /** Start a run on the thread (created first if new) and stream it into the page. */
  private async run(payload: { input?: unknown; command?: unknown }): Promise<void> {
    const assistant = this.assistant();
    if (!assistant) {
      this.showError("Choose an assistant first.");
      return;
    }
    replace(this.errors);
    replace(this.interruptBox);
    this.busy(true);
    try {
      if (!this.threadId) {
        const thread = await call((c) => c.threads.create({ metadata: { graph_id: assistant.graph_id } }));
        this.threadId = thread.thread_id;
        this.threadSelect.options[0].after(h("option", { value: thread.thread_id }, `${thread.thread_id.slice(0, 8)} · new`));
        this.threadSelect.value = thread.thread_id;
      }
      const threadId = this.threadId;
      this.runId = null;
      this.lastEventId = undefined;
      this.cancelled = false;
      this.setStatus("Running");
      const stream = client().runs.stream(threadId, assistant.assistant_id, {
        ...(payload as object),
        streamMode: [...STREAM_MODES],
        streamResumable: true,
        onDisconnect: "continue",
        onRunCreated: ({ run_id }) => {
          this.runId = run_id;
        },
      });
      await this.consume(stream);
    } catch (err) {
      await this.recover(err);
    } finally {
      this.busy(false);
    }
    await this.refresh();
  }

  /** After a failed stream: rejoin the run from the last event seen, a few times. */
  private async recover(err: unknown): Promise<void> {
    let lastError = err;
    for (let attempt = 1; this.runId && this.threadId && attempt <= RECONNECT_ATTEMPTS; attempt++) {
      if ((lastError as { status?: number })?.status) break; // the server answered: not a drop
      this.setStatus(`Connection lost; reconnecting (${attempt}/${RECONNECT_ATTEMPTS})`);
      await new Promise((r) => setTimeout(r, 500 * attempt));
      try {
        await this.consume(
          client().runs.joinStream(this.threadId, this.runId, {
            lastEventId: this.lastEventId,
            streamMode: [...STREAM_MODES],
          }),
        );
        return;
      } catch (again) {
        lastError = again;
      }
    }
    this.showError(errorText(lastError));
    this.setStatus("Error");
  }

  private async consume(stream: AsyncIterable<StreamPart>): Promise<void> {
    const threadId = this.threadId;
    for await (const part of stream) {
      if (this.threadId !== threadId) return; // another thread was opened: stop drawing this one
      if (part.id) this.lastEventId = part.id;
      const event = part.event.split("|")[0];
      if (event === "metadata") {
        this.runId = (part.data as { run_id?: string }).run_id ?? this.runId;
      } else if (event === "messages") {
        const [chunk] = part.data as [Message, unknown];
        this.onChunk(chunk);
      } else if (event === "updates") {
        const update = part.data as Record<string, unknown>;
        if (Array.isArray(update?.__interrupt__)) this.setStatus("Interrupted");
      } else if (event === "custom") {
        const data = part.data as { type?: string; stage?: string; message?: string };
        // A stage that is over (the model loaded) leaves nothing to wait for.
        if (data?.type === "status") this.stage.textContent = data.stage === "model_loaded" ? "" : data.message ?? "";
      } else if (event === "error") {
        const data = part.data as { error?: string; message?: string };
        this.showError(`Run failed: ${data.message ?? data.error ?? JSON.stringify(data)}`);
        this.setStatus("Error");
      }
    }
  }

  /** A streamed message chunk: appended to its message (by id), drawn as it grows. */
  private onChunk(chunk: Message): void {
    const id = chunk.id ?? "";
    const isChunk = chunk.type.endsWith("Chunk");
    const previous = this.chunks.get(id);
    let message: Message;
    if (previous && isChunk) {
      const text = (typeof previous.content === "string" ? previous.content : "") +
        (typeof chunk.content === "string" ? chunk.content : "");
      message = { ...previous, content: text, tool_calls: chunk.tool_calls?.length ? chunk.tool_calls : previous.tool_calls };
    } else {
      message = { ...chunk };
    }
    this.chunks.set(id, message);
    let el = id ? this.log.querySelector<HTMLElement>(`[data-id="${CSS.escape(id)}"]`) : null;
    if (!el) {
      el = renderMessage(message);
      this.log.append(el);
    } else {
      fillMessage(el, message);
    }
    this.log.scrollTop = this.log.scrollHeight;
  }

  private async cancel(): Promise<void> {
    if (!this.threadId || !this.runId) return;
    const [threadId, runId] = [this.threadId, this.runId];
    try {
      this.cancelled = true;
      await call((c) => c.runs.cancel(threadId, runId));
      this.setStatus("Cancelling");
    } catch (err) {
      this.showError(`Could not cancel: ${errorText(err)}`);
    }
  }

  private busy(on: boolean): void {
    this.sendButton.disabled = on;
    this.cancelButton.disabled = !on;
  }

  private setStatus(text: string): void {
    if (text !== "Running") this.stage.textContent = "";
    this.status.textContent = `Status: ${text}`;
    this.root.dataset.status = text.toLowerCase();
  }

  private showError(message: string): void {
    this.errors.append(errorBox(message));
  }
}
