// Chat with any assistant, laid out as a chat app: the assistant's threads in a sidebar
// (search, status kept current), the conversation filling the page with the composer fixed at
// its bottom, replies streamed token by token (`messages-tuple`) and rendered as Markdown, tool
// calls folded with their results in the assistant's turn, the run's status and the model's
// load stages above the composer, cancel, errors in the page, interrupts as forms, and
// reconnect with Last-Event-ID when the connection drops mid-run, and the assistant's graph
// beside the conversation (behind the Graph button) with the node the run is in marked. The
// address keeps the assistant and the thread (`#/chat?assistant=...&thread=...`), so a reload
// reopens both.

import type { Assistant } from "@langchain/langgraph-sdk";
import { call, client, errorText } from "./api";
import { announce, errorBox, h, replace } from "./dom";
import { GenerativeUi, isUiEvent, type UiMessage } from "./generative_ui";
import { GraphPanel } from "./graph_panel";
import { type Interrupt, interruptForms, pendingInterrupts } from "./interrupts";
import { type Message, mergeChunk, textOf, Transcript } from "./messages";
import { type PendingState, RunProgress } from "./run_progress";
import { type ThreadEntry, ThreadList } from "./threadlist";
import { traceHref } from "./trace_link";

// `custom` carries the server's stage messages ("loading local/... "), shown beside the status;
// `tasks` says when each node starts and ends (the graph marks the node running as it starts).
const STREAM_MODES = ["messages-tuple", "values", "updates", "custom", "tasks"] as const;
/** Whether the graph is shown beside the conversation, kept over reloads. */
const GRAPH_KEY = "olg.ui.graph";
const TOOLS_KEY = "olg.ui.tools";
const RECONNECT_ATTEMPTS = 5;
/** The assistant the chat opens on when the address names none. */
const DEFAULT_GRAPH = "react_agent";
/** Within this many pixels of the end, the conversation follows new text. */
const STICK_PX = 48;

interface StreamPart {
  event: string;
  data: unknown;
  id?: string;
}

const icon = (path: string) => {
  const span = h("span", { class: "icon-wrap", "aria-hidden": "true" });
  span.innerHTML = `<svg class="icon" viewBox="0 0 24 24">${path}</svg>`;
  return span;
};

/** The label of an assistant in the picker: its graph, and its name when that differs. */
const assistantLabel = (a: Assistant) => (a.name === a.graph_id ? a.graph_id : `${a.name} (${a.graph_id})`);

/** Whether tool calls are shown in the conversation (the person's last choice; shown by default). */
function storedToolsShown(): boolean {
  try {
    return localStorage.getItem(TOOLS_KEY) !== "hidden";
  } catch {
    return true;
  }
}

function storedGraphOpen(): boolean {
  try {
    return localStorage.getItem(GRAPH_KEY) === "open";
  } catch {
    return false;
  }
}

function hashParams(): URLSearchParams {
  return new URLSearchParams(location.hash.split("?")[1] ?? "");
}

export class ChatView {
  readonly root = h("section", { class: "chat", "aria-labelledby": "chat-title" });
  private sidebar = new ThreadList((id) => void this.pickThread(id));
  private assistantSelect = h("select", { id: "assistant-select" });
  private sidebarButton = h(
    "button",
    {
      type: "button",
      class: "icon-button sidebar-toggle",
      "aria-controls": "chat-sidebar",
      "aria-expanded": "true",
      title: "Show or hide the threads",
    },
    icon('<path d="M4 6h16M4 12h16M4 18h16"/>'),
    h("span", { class: "button-label" }, "Threads"),
  );
  private newThreadButton = h(
    "button",
    { type: "button", class: "icon-button new-thread", "aria-label": "New thread", title: "New thread" },
    icon('<path d="M12 5v14M5 12h14"/>'),
    h("span", { class: "button-label", "aria-hidden": "true" }, "New thread"),
  );
  private graphButton = h(
    "button",
    {
      type: "button",
      class: "icon-button graph-toggle",
      "aria-controls": "chat-graph",
      "aria-expanded": "false",
      title: "Show or hide the graph",
    },
    icon('<circle cx="6" cy="5" r="2.5"/><circle cx="18" cy="5" r="2.5"/><circle cx="12" cy="19" r="2.5"/><path d="M7.2 7.3l3.6 9.4M16.8 7.3l-3.6 9.4"/>'),
    h("span", { class: "button-label" }, "Graph"),
  );
  private graph = new GraphPanel(true);
  private progress = new RunProgress((states) => this.graph.paint(states));
  private graphSection = h(
    "section",
    { id: "chat-graph", class: "chat-graph", "aria-labelledby": "chat-graph-title", hidden: true },
    h("h3", { id: "chat-graph-title" }, "Graph"),
    this.graph.root,
  );
  private transcriptBox = h("div", { class: "transcript" });
  private log = h("div", { class: "messages", role: "log", "aria-label": "Conversation" });
  private transcript = new Transcript(this.log);
  /** Components the graph pushes (`push_ui_message`), in the turns they belong to. */
  private genui = new GenerativeUi(this.transcript, () => this.assistant()?.assistant_id);
  private jumpButton = h("button", { type: "button", class: "jump secondary", hidden: true }, "↓ Jump to latest");
  private status = h("p", { class: "status", role: "status" }, "Status: Idle");
  private stage = h("p", { class: "stage", "aria-live": "polite" });
  /** The run's trace (the thread's latest run until this page started one). */
  private traceLink = h("a", { class: "trace-link", hidden: true }, "Trace");
  /** Unticked, the conversation shows only what was said (as Agent Chat UI's "Hide Tool Calls"). */
  private toolsToggle = h("input", { type: "checkbox", id: "tools-toggle", checked: storedToolsShown() });
  private interruptBox = h("div", { class: "interrupts" });
  private errors = h("div", { class: "errors" });
  private input = h("textarea", {
    id: "chat-input",
    rows: "1",
    placeholder: "Message",
    "aria-describedby": "chat-input-hint",
  });
  private sendButton = h("button", { type: "submit", class: "send" }, "Send");
  private cancelButton = h("button", { type: "button", class: "secondary", disabled: true }, "Cancel run");
  private backdrop = h("div", { class: "backdrop", "aria-hidden": "true" });
  private wide = window.matchMedia("(min-width: 48rem)");
  private assistants: Assistant[] = [];
  private listedFor: string | null = null;
  private threadId: string | null = null;
  private runId: string | null = null;
  private lastEventId: string | undefined;
  private cancelled = false;
  private chunks = new Map<string, Message>();
  /** Counts the threads opened: a stream or a redraw of an earlier one stops drawing. */
  private generation = 0;
  /** Counts thread-list loads: only the newest may draw. */
  private listing = 0;
  private stick = true;

  constructor() {
    const form = h(
      "form",
      { class: "composer", "aria-label": "Send a message" },
      h("label", { for: "chat-input", class: "visually-hidden" }, "Message"),
      this.input,
      h("div", { class: "composer-actions" }, this.cancelButton, this.sendButton),
    );
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      void this.send();
    });
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        form.requestSubmit();
      }
    });
    this.input.addEventListener("input", () => this.fitInput());
    this.cancelButton.addEventListener("click", () => void this.cancel());
    this.assistantSelect.addEventListener("change", () => void this.chooseAssistant());
    this.newThreadButton.addEventListener("click", () => {
      void this.openThread(null);
      this.input.focus();
    });
    this.sidebarButton.addEventListener("click", () => this.setSidebar(!this.sidebarOpen()));
    this.graphButton.addEventListener("click", () => this.setGraph(this.graphSection.hidden, true));
    this.backdrop.addEventListener("click", () => this.setSidebar(false));
    this.root.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && !this.wide.matches && this.sidebarOpen()) {
        this.setSidebar(false);
        this.sidebarButton.focus();
      }
    });
    this.wide.addEventListener("change", () => this.setSidebar(this.wide.matches));
    this.transcriptBox.addEventListener("scroll", () => {
      const box = this.transcriptBox;
      this.stick = box.scrollHeight - box.scrollTop - box.clientHeight < STICK_PX;
      this.jumpButton.hidden = this.stick;
    });
    this.jumpButton.addEventListener("click", () => {
      this.stick = true;
      this.toBottom();
      this.input.focus();
    });
    replace(this.transcriptBox, h("div", { class: "column" }, this.log, this.interruptBox, this.errors));
    replace(
      this.root,
      this.sidebar.root,
      this.backdrop,
      h(
        "div",
        { class: "chat-pane" },
        h(
          "div",
          { class: "pane-head" },
          this.sidebarButton,
          h("h2", { id: "chat-title" }, "Chat"),
          h(
            "div",
            { class: "assistant-pick" },
            h("label", { for: "assistant-select" }, "Assistant"),
            this.assistantSelect,
          ),
          this.newThreadButton,
          this.graphButton,
        ),
        this.graphSection,
        this.transcriptBox,
        h(
          "div",
          { class: "bottom" },
          this.jumpButton,
          h(
            "div",
            { class: "column" },
            h(
              "div",
              { class: "run-line" },
              this.status,
              this.stage,
              this.traceLink,
              h("label", { class: "tools-toggle", for: "tools-toggle" }, this.toolsToggle, "Tool calls"),
            ),
            form,
            h("small", { id: "chat-input-hint", class: "hint" }, "Enter sends; Shift+Enter adds a line."),
          ),
        ),
      ),
    );
    this.setSidebar(this.wide.matches);
    this.setGraph(storedGraphOpen());
    this.showTools(this.toolsToggle.checked);
    this.toolsToggle.addEventListener("change", () => this.showTools(this.toolsToggle.checked, true));
  }

  /** List the assistants and open the one (and the thread) the address names; else keep the
  ones open, else the default assistant on a new thread. */
  async load(): Promise<void> {
    try {
      this.assistants = await call((c) => c.assistants.search({ limit: 100 }));
    } catch (err) {
      this.showError(`Could not list assistants: ${errorText(err)}`);
      return;
    }
    this.assistants.sort((a, b) => assistantLabel(a).localeCompare(assistantLabel(b)));
    const current = this.assistantSelect.value;
    replace(
      this.assistantSelect,
      this.assistants.map((a) => h("option", { value: a.assistant_id }, assistantLabel(a))),
    );
    const params = hashParams();
    const wanted = params.get("assistant");
    // `?assistant=` names an assistant by id or name, else by graph (its first assistant).
    const byName = (name: string | null) =>
      this.assistants.find((a) => a.assistant_id === name || a.name === name) ??
      this.assistants.find((a) => a.graph_id === name);
    const pick =
      byName(wanted) ??
      this.assistants.find((a) => a.assistant_id === current) ??
      byName(DEFAULT_GRAPH) ??
      this.assistants[0];
    if (!pick) {
      this.showError("The server has no assistants to chat with.");
      return;
    }
    this.assistantSelect.value = pick.assistant_id;
    this.showGraph();
    this.log.dataset.empty = `Send a message to start a thread with ${assistantLabel(pick)}.`;
    const thread = params.get("thread") ?? (pick.assistant_id === current ? this.threadId : null);
    // Coming back to the chat on the thread already open leaves it (and any run it follows) be.
    if (thread !== this.threadId || this.generation === 0) await this.openThread(thread);
    else {
      this.syncAddress();
      await this.loadThreadList();
    }
  }

  private async chooseAssistant(): Promise<void> {
    const assistant = this.assistant();
    if (assistant) this.log.dataset.empty = `Send a message to start a thread with ${assistantLabel(assistant)}.`;
    this.showGraph();
    await this.openThread(null);
  }

  private assistant(): Assistant | undefined {
    return this.assistants.find((a) => a.assistant_id === this.assistantSelect.value);
  }

  /** The sidebar's threads: those of the chosen assistant's graph, newest first, each named
  by its first message (`extract`, so no thread's whole state is loaded). */
  private async loadThreadList(): Promise<void> {
    const assistant = this.assistant();
    if (!assistant) return;
    const ticket = ++this.listing;
    try {
      const threads = await call((c) =>
        c.threads.search({
          metadata: { graph_id: assistant.graph_id },
          limit: 50,
          sortBy: "updated_at",
          sortOrder: "desc",
          select: ["thread_id", "status", "updated_at"],
          extract: { first: "values.messages[0].content" },
        }),
      );
      if (ticket !== this.listing) return;
      if (this.listedFor !== assistant.assistant_id) this.sidebar.set([]);
      this.listedFor = assistant.assistant_id;
      this.sidebar.set(
        threads.map((t) => {
          const first = textOf((t as { extracted?: { first?: unknown } }).extracted?.first).trim();
          return {
            id: t.thread_id,
            status: t.status,
            updatedAt: t.updated_at,
            label: first ? first.slice(0, 120) : `Thread ${t.thread_id.slice(0, 8)}`,
          } satisfies ThreadEntry;
        }),
      );
    } catch (err) {
      this.showError(`Could not list threads: ${errorText(err)}`);
    }
  }

  private async pickThread(threadId: string): Promise<void> {
    if (!this.wide.matches) {
      this.setSidebar(false);
      this.sidebarButton.focus(); // the list is gone: the focus goes back to what opened it
    }
    if (threadId !== this.threadId) await this.openThread(threadId);
  }

  /** Show a thread's messages and any interrupt it waits on; null starts a new thread. */
  async openThread(threadId: string | null): Promise<void> {
    const generation = ++this.generation;
    this.threadId = threadId;
    this.runId = null;
    this.chunks.clear();
    this.transcript.clear();
    this.genui.clear();
    this.progress.reset();
    replace(this.interruptBox);
    replace(this.errors);
    this.busy(false);
    this.setStatus("Idle");
    this.sidebar.select(threadId);
    this.syncAddress();
    this.stick = true;
    // The list is read again whenever the thread changes (refresh reads it for an open one),
    // so no thread keeps a status that is over.
    if (!threadId) await this.loadThreadList();
    else if ((await this.refresh(generation)) === "busy") await this.follow(threadId, generation);
  }

  /** The address names the assistant and the thread open, so a reload comes back to them.
  (replaceState: no hashchange, so the view is not loaded again.) */
  private syncAddress(): void {
    const assistant = this.assistant();
    if (!assistant) return;
    const unique = this.assistants.filter((a) => a.name === assistant.name).length === 1;
    const params = new URLSearchParams({ assistant: unique ? assistant.name : assistant.assistant_id });
    if (this.threadId) params.set("thread", this.threadId);
    history.replaceState(history.state, "", `#/chat?${params}`);
  }

  /** Show or hide the tool calls and their results in the conversation. */
  private showTools(shown: boolean, remember = false): void {
    this.root.dataset.tools = shown ? "shown" : "hidden";
    if (!remember) return;
    try {
      localStorage.setItem(TOOLS_KEY, shown ? "shown" : "hidden");
    } catch {
      /* not kept (storage refused) */
    }
  }

  /** Show or hide the graph: beside the conversation when the page is wide, above it on a
  phone; the choice is kept for the next visit. */
  private setGraph(open: boolean, remember = false): void {
    this.graphSection.hidden = !open;
    this.graphButton.setAttribute("aria-expanded", String(open));
    this.root.dataset.graph = open ? "open" : "closed";
    if (remember) {
      try {
        localStorage.setItem(GRAPH_KEY, open ? "open" : "closed");
      } catch {
        /* not kept (storage refused): shown anyway */
      }
    }
    if (open) this.showGraph();
  }

  /** Draw the chosen assistant's graph, when the graph is shown (its layout code is fetched
  only then). */
  private showGraph(): void {
    const assistant = this.assistant();
    if (assistant && !this.graphSection.hidden) void this.graph.show(assistant.assistant_id, assistant.graph_id);
  }

  private sidebarOpen(): boolean {
    return this.root.dataset.sidebar === "open";
  }

  /** Show or hide the threads: beside the conversation when the page is wide, over it on a
  phone (where choosing a thread, the backdrop or Escape closes it). */
  private setSidebar(open: boolean): void {
    this.root.dataset.sidebar = open ? "open" : "closed";
    this.sidebarButton.setAttribute("aria-expanded", String(open));
    if (open && !this.wide.matches) this.sidebar.focus();
  }

  /** A thread opened while a run works on it (a page reloaded mid-run, another tab's run):
  join that run's stream from its first event (`Last-Event-ID: -1`), so the reply being
  written appears whole and grows to its end. */
  private async follow(threadId: string, generation: number): Promise<void> {
    let active;
    try {
      const runs = await call((c) => c.runs.list(threadId, { limit: 10 }));
      active = runs.find((r) => r.status === "running" || r.status === "pending");
    } catch (err) {
      this.showError(`Could not list the thread's runs: ${errorText(err)}`);
      return;
    }
    if (!active || generation !== this.generation) return;
    this.runId = active.run_id;
    this.lastEventId = "-1";
    this.progress.reset(); // the run's events come again from its first
    this.cancelled = false;
    this.busy(true);
    this.setStatus("Running");
    try {
      await this.consume(
        client().runs.joinStream(threadId, active.run_id, { lastEventId: "-1", streamMode: [...STREAM_MODES] }),
        generation,
      );
    } catch (err) {
      await this.recover(err, generation);
    }
    if (generation !== this.generation) return;
    this.busy(false);
    await this.refresh(generation);
  }

  /** Redraw from the thread's stored state: the authoritative messages and interrupts; the
  sidebar gets the thread's status, and the list is read again. Gives the thread's status
  (undefined when it could not be read, or another thread was opened meanwhile). */
  private async refresh(generation: number): Promise<string | undefined> {
    if (!this.threadId) return;
    const threadId = this.threadId;
    try {
      const [thread, state] = await Promise.all([
        call((c) => c.threads.get(threadId)),
        call((c) => c.threads.getState(threadId)),
      ]);
      this.sidebar.setStatus(threadId, thread.status);
      if (generation !== this.generation) return undefined;
      this.progress.settle(state as PendingState, thread.status);
      const values = (state.values ?? {}) as { messages?: Message[]; ui?: UiMessage[] };
      const keep = this.stick ? null : this.transcriptBox.scrollTop; // the person scrolled up to read
      this.chunks.clear();
      this.transcript.setMessages(values.messages ?? []);
      // `ui` is the key `push_ui_message` keeps its messages in (LangGraph's default).
      this.genui.setAll(Array.isArray(values.ui) ? values.ui.filter(isUiEvent) : []);
      const interrupts = pendingInterrupts(state as never);
      this.showInterrupts(interrupts);
      const done = this.cancelled ? "Cancelled" : "Done";
      // A cancelled run may leave its next step pending, the thread `interrupted` as on the
      // Platform, with no question asked: that is the cancel, not a question to answer.
      const cancelledMidway = this.cancelled && !interrupts.length && thread.status === "interrupted";
      this.setStatus(thread.status === "idle" || cancelledMidway ? done : thread.status);
      if (keep === null) this.toBottom();
      else this.transcriptBox.scrollTop = keep;
      // The focus was in a form the redraw removed (an answered review): back to the composer.
      if (!interrupts.length && (document.activeElement === document.body || !document.activeElement)) {
        this.input.focus();
      }
      void this.loadThreadList();
      return thread.status;
    } catch (err) {
      if (generation === this.generation) this.showError(errorText(err));
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
    this.fitInput();
    this.transcript.addHuman(text);
    this.stick = true;
    this.toBottom();
    await this.run({ input: { messages: [{ role: "user", content: text }] } }, text);
  }

  /** Start a run on the thread (created first if new) and stream it into the page. */
  private async run(payload: { input?: unknown; command?: unknown }, firstText?: string): Promise<void> {
    const assistant = this.assistant();
    if (!assistant) {
      this.showError("Choose an assistant first.");
      return;
    }
    const generation = this.generation;
    replace(this.errors);
    replace(this.interruptBox);
    this.busy(true);
    try {
      if (!this.threadId) {
        const thread = await call((c) => c.threads.create({ metadata: { graph_id: assistant.graph_id } }));
        if (generation !== this.generation) return;
        this.threadId = thread.thread_id;
        this.sidebar.add({
          id: thread.thread_id,
          status: "busy",
          updatedAt: thread.created_at,
          label: firstText?.slice(0, 120) || `Thread ${thread.thread_id.slice(0, 8)}`,
        });
        this.sidebar.select(thread.thread_id);
        this.syncAddress();
      }
      const threadId = this.threadId;
      this.sidebar.setStatus(threadId, "busy");
      this.runId = null;
      this.lastEventId = undefined;
      this.cancelled = false;
      if (payload.command) this.progress.resumed();
      else this.progress.reset();
      this.setStatus("Running");
      const stream = client().runs.stream(threadId, assistant.assistant_id, {
        ...(payload as object),
        streamMode: [...STREAM_MODES],
        streamResumable: true,
        onDisconnect: "continue",
        onRunCreated: ({ run_id }) => {
          if (generation !== this.generation) return;
          this.runId = run_id;
          this.showTraceLink();
        },
      });
      await this.consume(stream, generation);
    } catch (err) {
      await this.recover(err, generation);
    }
    if (generation !== this.generation) {
      void this.loadThreadList(); // the run went on in a thread no longer open: its status
      return;
    }
    this.busy(false);
    await this.refresh(generation);
  }

  /** After a failed stream: rejoin the run from the last event seen, a few times. */
  private async recover(err: unknown, generation: number): Promise<void> {
    let lastError = err;
    for (let attempt = 1; this.runId && this.threadId && attempt <= RECONNECT_ATTEMPTS; attempt++) {
      if ((lastError as { status?: number })?.status) break; // the server answered: not a drop
      if (generation !== this.generation) return;
      this.setStatus(`Connection lost; reconnecting (${attempt}/${RECONNECT_ATTEMPTS})`);
      await new Promise((r) => setTimeout(r, 500 * attempt));
      if (generation !== this.generation) return;
      try {
        await this.consume(
          client().runs.joinStream(this.threadId, this.runId, {
            lastEventId: this.lastEventId,
            streamMode: [...STREAM_MODES],
          }),
          generation,
        );
        return;
      } catch (again) {
        lastError = again;
      }
    }
    if (generation !== this.generation) return;
    this.showError(errorText(lastError));
    this.setStatus("Error");
  }

  private async consume(stream: AsyncIterable<StreamPart>, generation: number): Promise<void> {
    for await (const part of stream) {
      if (generation !== this.generation) return; // another thread was opened: stop drawing this one
      if (part.id) this.lastEventId = part.id;
      const [event, namespace] = part.event.split("|");
      if (!namespace) this.progress.onEvent(event, part.data);
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
        if (isUiEvent(data)) {
          this.genui.apply(data);
          if (this.stick) this.toBottom();
        }
        // A stage that is over (the model loaded) leaves nothing to wait for.
        else if (data?.type === "status") this.stage.textContent = data.stage === "model_loaded" ? "" : (data.message ?? "");
      } else if (event === "error") {
        const data = part.data as { error?: string; message?: string };
        this.showError(`Run failed: ${data.message ?? data.error ?? JSON.stringify(data)}`);
        this.setStatus("Error");
      }
    }
  }

  /** A streamed message chunk: added to its message (by id), drawn as it grows. */
  private onChunk(chunk: Message): void {
    // A model that gives its chunks no id streams one message: they are joined under one key.
    const id = chunk.id || "streamed-without-id";
    const message = { ...mergeChunk(this.chunks.get(id), chunk), id };
    this.chunks.set(id, message);
    this.transcript.put(message);
    this.genui.place(); // a card may name this message
    if (this.stick) this.toBottom();
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

  private toBottom(): void {
    this.transcriptBox.scrollTop = this.transcriptBox.scrollHeight;
  }

  /** The composer grows with what is typed, up to a third of the screen, then scrolls. */
  private fitInput(): void {
    this.input.style.height = "auto";
    this.input.style.height = `${Math.min(this.input.scrollHeight + 2, Math.max(120, window.innerHeight / 3))}px`;
  }

  private busy(on: boolean): void {
    this.sendButton.disabled = on;
    this.cancelButton.disabled = !on;
    this.root.dataset.busy = String(on);
  }

  private setStatus(text: string): void {
    if (text !== "Running") this.stage.textContent = "";
    this.showTraceLink();
    this.status.textContent = `Status: ${text}`;
    this.root.dataset.status = text.toLowerCase();
  }

  private showTraceLink(): void {
    this.traceLink.hidden = !this.threadId;
    if (this.threadId) this.traceLink.href = traceHref(this.threadId, this.runId);
  }

  private showError(message: string): void {
    this.errors.append(errorBox(message));
    if (this.stick) this.toBottom();
  }
}
