// Chat messages as the page shows them: text, tool calls and tool results folded in <details>.

import { h, pre } from "./dom";

export interface ToolCall {
  name: string;
  args: unknown;
  id?: string;
}

export interface Message {
  id?: string;
  type: string;
  content: unknown;
  tool_calls?: ToolCall[];
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

const ROLES: Record<string, string> = {
  human: "You",
  user: "You",
  ai: "Assistant",
  AIMessageChunk: "Assistant",
  tool: "Tool",
  system: "System",
};

function roleClass(type: string): string {
  if (type === "AIMessageChunk") return "ai";
  if (type === "user") return "human";
  return type;
}

/** The element for one message; `data-id` lets streamed chunks find it again. */
export function renderMessage(message: Message): HTMLElement {
  const type = message.type;
  const el = h("article", { class: `msg ${roleClass(type)}`, "data-id": message.id ?? "" });
  fillMessage(el, message);
  return el;
}

/** (Re)draw a message element's body. */
export function fillMessage(el: HTMLElement, message: Message): void {
  const type = message.type;
  const role = ROLES[type] ?? type;
  const text = textOf(message.content);
  el.replaceChildren();
  if (type === "tool") {
    const failed = message.status === "error";
    el.append(
      h(
        "details",
        { class: "tool-result" },
        h("summary", {}, `Tool result${message.name ? `: ${message.name}` : ""}${failed ? " (error)" : ""}`),
        pre(text, "Tool result"),
      ),
    );
    return;
  }
  el.append(h("div", { class: "role" }, role));
  if (text) el.append(h("div", { class: "text" }, text));
  for (const call of message.tool_calls ?? []) {
    if (!call.name) continue;
    el.append(
      h(
        "details",
        { class: "tool-call" },
        h("summary", {}, `Tool call: ${call.name}`),
        pre(call.args, `Arguments of ${call.name}`),
      ),
    );
  }
}
