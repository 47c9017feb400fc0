// The conversation as the page shows it: a person's messages as plain text in bubbles; each
// assistant turn (its AI messages and the results of their tool calls, up to the next human
// message) as one block, its text rendered as Markdown and every tool call folded with its
// result beside it. Streamed chunks grow the message they belong to in place.

import { copyButton, h, pre } from "./dom";

// The Markdown renderer (marked, DOMPurify, highlight.js) is a chunk of its own, fetched as
// the page starts: the first paint does not wait for it. Text drawn before it arrives is shown
// plain, then rendered when it does.
type Renderer = typeof import("./markdown");
let renderer: Renderer | null = null;
const waiting = new Set<HTMLElement>();
const markdownSource = new WeakMap<HTMLElement, string>();
void import("./markdown").then((module) => {
  renderer = module;
  for (const el of waiting) if (el.isConnected) drawMarkdown(el, markdownSource.get(el) ?? "");
  waiting.clear();
}, () => waiting.clear()); // not loaded (the server went away): the text stays plain

function drawMarkdown(el: HTMLElement, text: string): void {
  markdownSource.set(el, text);
  if (renderer) {
    renderer.renderMarkdown(el, text);
  } else {
    el.textContent = text;
    waiting.add(el);
  }
}

export interface ToolCall {
  name: string;
  args: unknown;
  id?: string;
}

/** A streamed piece of a tool call: `args` is a fragment of its JSON. */
export interface ToolCallChunk {
  name?: string | null;
  args?: string | null;
  id?: string | null;
  index?: number | null;
}

export interface Message {
  id?: string;
  type: string;
  content: unknown;
  tool_calls?: ToolCall[];
  tool_call_chunks?: ToolCallChunk[];
  name?: string;
  tool_call_id?: string;
  status?: string;
}

/** A message's text: strings as they are, content blocks by their `text`. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((block) => (typeof block === "string" ? block : ((block as { text?: string }).text ?? "")))
      .join("");
  }
  return content == null ? "" : JSON.stringify(content);
}

const isAi = (type: string) => type === "ai" || type === "AIMessageChunk";
const isHuman = (type: string) => type === "human" || type === "user" || type === "HumanMessageChunk";
const isTool = (type: string) => type === "tool" || type === "ToolMessageChunk";

/** `chunk` added to the message streamed so far (`previous`, of the same id): text appended,
 * tool-call fragments joined by index (their arguments parsed once they are whole JSON). */
export function mergeChunk(previous: Message | undefined, chunk: Message): Message {
  if (!chunk.type.endsWith("Chunk")) return chunk; // a whole message: it replaces the pieces
  const base: Message = previous ?? { ...chunk, content: "", tool_calls: [], tool_call_chunks: [] };
  const pieces = [...(base.tool_call_chunks ?? [])];
  for (const piece of chunk.tool_call_chunks ?? []) {
    const at = piece.index == null ? -1 : pieces.findIndex((p) => p.index === piece.index);
    if (at < 0) pieces.push({ ...piece });
    else {
      const p = pieces[at];
      pieces[at] = { ...p, name: p.name || piece.name, id: p.id || piece.id, args: (p.args ?? "") + (piece.args ?? "") };
    }
  }
  const calls: ToolCall[] = pieces.length
    ? pieces.map((p) => ({ name: p.name ?? "", id: p.id ?? undefined, args: parseArgs(p.args ?? "") }))
    : chunk.tool_calls?.length
      ? chunk.tool_calls
      : (base.tool_calls ?? []);
  return { ...base, content: textOf(base.content) + textOf(chunk.content), tool_call_chunks: pieces, tool_calls: calls };
}

function parseArgs(text: string): unknown {
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch {
    return text; // still streaming: shown as it stands
  }
}

/** Tool output as text, JSON pretty-printed. */
function resultText(text: string): string {
  const trimmed = text.trim();
  if (!/^[[{]/.test(trimmed)) return text;
  try {
    return JSON.stringify(JSON.parse(trimmed), null, 2);
  } catch {
    return text;
  }
}

/** What each drawn message part says, for its turn's copy button. */
const rawText = new WeakMap<Element, string>();

/** Draws messages into the conversation log (`role=log`), stored or streamed. */
export class Transcript {
  constructor(readonly log: HTMLElement) {}

  clear(): void {
    this.log.replaceChildren();
  }

  /** A thread's stored messages, drawn afresh. */
  setMessages(messages: Message[]): void {
    this.clear();
    for (const message of messages) this.put(message);
  }

  /** A message the person just sent, shown before the run stores it. */
  addHuman(text: string): void {
    this.log.append(this.humanElement({ type: "human", content: text }));
  }

  /** A message, new or grown since it was last drawn, put where it belongs. */
  put(message: Message): void {
    if (isHuman(message.type)) this.putHuman(message);
    else if (isTool(message.type)) this.putToolResult(message);
    else if (isAi(message.type)) this.putAi(message);
    else this.log.append(h("article", { class: "msg system", "data-id": message.id ?? "" }, h("div", { class: "text" }, textOf(message.content))));
  }

  private find(selector: string, id: string | undefined): HTMLElement | null {
    return id ? this.log.querySelector<HTMLElement>(`${selector}[data-id="${CSS.escape(id)}"]`) : null;
  }

  private putHuman(message: Message): void {
    if (this.find(".msg.human", message.id)) return;
    // The page drew it when it was sent: the stored copy only brings its id.
    const last = this.log.lastElementChild as HTMLElement | null;
    if (last?.matches(".msg.human:not([data-id])") && last.querySelector(".text")?.textContent === textOf(message.content)) {
      last.dataset.id = message.id ?? "";
      return;
    }
    this.log.append(this.humanElement(message));
  }

  private humanElement(message: Message): HTMLElement {
    const text = textOf(message.content);
    return h(
      "article",
      { class: "msg human", "data-id": message.id },
      h("div", { class: "bubble" }, h("span", { class: "visually-hidden" }, "You: "), h("div", { class: "text" }, text)),
      h("div", { class: "msg-actions" }, copyButton("Copy message", () => text)),
    );
  }

  /** The body of assistant turn `index` (0 the first), else of the last turn, started if the
  log does not end with one; and that turn's index. */
  turnBody(index?: number): [HTMLElement, number] {
    const turns = this.log.querySelectorAll<HTMLElement>(":scope > .msg.ai");
    if (index !== undefined && index < turns.length) {
      const turn = turns[index];
      return [turn.querySelector<HTMLElement>(".turn-body") ?? turn, index];
    }
    const body = this.currentTurn();
    return [body, this.log.querySelectorAll(":scope > .msg.ai").length - 1];
  }

  /** The assistant turn at the end of the log, started if the last message is not one. */
  private currentTurn(): HTMLElement {
    const last = this.log.lastElementChild as HTMLElement | null;
    if (last?.matches(".msg.ai")) return last.querySelector<HTMLElement>(".turn-body") ?? last;
    const body = h("div", { class: "turn-body" });
    const turn = h(
      "article",
      { class: "msg ai" },
      h("span", { class: "visually-hidden" }, "Assistant: "),
      body,
      h(
        "div",
        { class: "msg-actions" },
        copyButton("Copy message", () =>
          [...body.querySelectorAll(".part")].map((part) => rawText.get(part) ?? "").filter(Boolean).join("\n\n"),
        ),
      ),
    );
    this.log.append(turn);
    return body;
  }

  private putAi(message: Message): void {
    let part = this.find(".part", message.id);
    if (!part) {
      part = h("div", { class: "part", "data-id": message.id ?? "" }, h("div", { class: "tools" }));
      this.currentTurn().append(part);
    }
    const text = textOf(message.content);
    rawText.set(part, text);
    let textEl = part.querySelector<HTMLElement>(":scope > .text");
    if (text) {
      if (!textEl) {
        textEl = h("div", { class: "text markdown" });
        part.prepend(textEl);
      }
      drawMarkdown(textEl, text);
    } else {
      textEl?.remove();
    }
    const tools = part.querySelector<HTMLElement>(":scope > .tools") as HTMLElement;
    (message.tool_calls ?? []).forEach((call, i) => {
      if (!call.name) return;
      const key = call.id || `index-${i}`;
      let tool = tools.querySelector<HTMLElement>(`:scope > .tool[data-call-id="${CSS.escape(key)}"]`);
      if (!tool) {
        tool = h("div", { class: "tool", "data-call-id": key, "data-state": "pending" });
        tools.append(tool);
      }
      const shown = JSON.stringify(call.args);
      if (tool.dataset.args === shown) return; // unchanged: keep it as the person left it
      tool.dataset.args = shown;
      const details = tool.querySelector<HTMLDetailsElement>(":scope > details.tool-call");
      const open = details?.open ?? false;
      const fresh = h(
        "details",
        { class: "tool-call", open },
        h("summary", {}, `Tool call: ${call.name}`),
        argumentsView(call.args, call.name),
      );
      if (details) details.replaceWith(fresh);
      else tool.prepend(fresh);
    });
  }

  private putToolResult(message: Message): void {
    const failed = message.status === "error";
    const fresh = h(
      "details",
      { class: "tool-result", "data-id": message.id ?? "" },
      h("summary", {}, `Tool result${message.name ? `: ${message.name}` : ""}${failed ? " (error)" : ""}`),
      pre(resultText(textOf(message.content)), "Tool result"),
    );
    const existing = this.find("details.tool-result", message.id);
    if (existing) {
      (fresh as HTMLDetailsElement).open = (existing as HTMLDetailsElement).open;
      existing.replaceWith(fresh);
      return;
    }
    // Beside the call it answers, when that call is on the page; else at the end of the turn.
    const key = message.tool_call_id;
    const tool = key ? this.log.querySelector<HTMLElement>(`.tool[data-call-id="${CSS.escape(key)}"]`) : null;
    if (tool) {
      tool.dataset.state = failed ? "error" : "done";
      tool.append(fresh);
    } else {
      this.currentTurn().append(h("div", { class: "tool", "data-state": failed ? "error" : "done" }, fresh));
    }
  }
}

const MAX_TABLE_ARGUMENTS = 8;

/** A tool call's arguments: a small table of name and value when they are a few plain values
 * (`expression | 6 * 7` reads faster than JSON), else the JSON itself. */
export function argumentsView(args: unknown, tool: string): HTMLElement {
  const entries = args && typeof args === "object" && !Array.isArray(args) ? Object.entries(args) : null;
  const plain = (v: unknown) => v === null || ["string", "number", "boolean"].includes(typeof v);
  if (!entries?.length || entries.length > MAX_TABLE_ARGUMENTS || !entries.every(([, v]) => plain(v))) {
    return pre(args, `Arguments of ${tool}`);
  }
  return h(
    "table",
    { class: "tool-args", "aria-label": `Arguments of ${tool}` },
    h(
      "tbody",
      {},
      entries.map(([name, value]) => h("tr", {}, h("th", { scope: "row" }, name), h("td", {}, String(value)))),
    ),
  );
}
