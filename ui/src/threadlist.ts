// The chat's sidebar: the assistant's threads, newest first, each named by its first message,
// with its status (kept current by the chat view) and when it last changed; a search box
// filters them by name or id. The list is one stop for Tab; the arrow keys move in it.

import { h, replace } from "./dom";

export interface ThreadEntry {
  id: string;
  status: string;
  updatedAt?: string;
  label: string;
}

/** How a thread's status reads in the list. */
const STATUS_WORDS: Record<string, string> = {
  idle: "idle",
  busy: "running",
  interrupted: "interrupted",
  error: "error",
};

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });

function ago(iso: string | undefined): string {
  if (!iso) return "";
  const seconds = (Date.parse(iso) - Date.now()) / 1000;
  if (!Number.isFinite(seconds)) return "";
  const steps: [number, Intl.RelativeTimeFormatUnit][] = [
    [60, "second"],
    [60, "minute"],
    [24, "hour"],
    [7, "day"],
    [4.35, "week"],
    [12, "month"],
  ];
  let value = seconds;
  for (const [size, unit] of steps) {
    if (Math.abs(value) < size) return relative.format(Math.round(value), unit);
    value /= size;
  }
  return relative.format(Math.round(value), "year");
}

export class ThreadList {
  readonly root = h("section", { class: "sidebar", id: "chat-sidebar", "aria-labelledby": "sidebar-title" });
  private search = h("input", {
    type: "search",
    class: "thread-search",
    placeholder: "Search threads",
    "aria-label": "Search threads",
    autocomplete: "off",
  });
  private list = h("ul", { class: "thread-items", "aria-label": "Threads" });
  private entries: ThreadEntry[] = [];
  private current: string | null = null;

  constructor(private readonly pick: (threadId: string) => void) {
    this.search.addEventListener("input", () => this.render());
    this.list.addEventListener("keydown", (e) => this.onKey(e));
    replace(
      this.root,
      h("h2", { id: "sidebar-title", class: "sidebar-title" }, "Threads"),
      this.search,
      this.list,
    );
  }

  /** The threads to list (newest first). */
  set(entries: ThreadEntry[]): void {
    // A thread this page just created may not be in the server's answer yet: keep it.
    const pending = this.entries.filter((e) => e.id === this.current && !entries.some((n) => n.id === e.id));
    this.entries = [...pending, ...entries];
    this.render();
  }

  /** A thread started in this page, listed first. */
  add(entry: ThreadEntry): void {
    this.entries = [entry, ...this.entries.filter((e) => e.id !== entry.id)];
    this.render();
  }

  /** The thread's status as the server now has it (a run began or ended). */
  setStatus(threadId: string, status: string): void {
    const entry = this.entries.find((e) => e.id === threadId);
    if (!entry || entry.status === status) return;
    entry.status = status;
    entry.updatedAt = new Date().toISOString();
    this.render();
  }

  /** Mark the open thread (null: a new one, not listed yet). */
  select(threadId: string | null): void {
    this.current = threadId;
    this.render();
  }

  focus(): void {
    this.search.focus();
  }

  private render(): void {
    const query = this.search.value.trim().toLowerCase();
    const shown = this.entries.filter((e) => !query || e.label.toLowerCase().includes(query) || e.id.includes(query));
    const focusedId = (document.activeElement as HTMLElement | null)?.dataset?.threadId;
    const tabStop = shown.find((e) => e.id === this.current)?.id ?? shown[0]?.id;
    replace(
      this.list,
      shown.length ? null : h("li", { class: "empty" }, this.entries.length ? "No threads match." : "No threads yet."),
      shown.map((entry) => {
        const status = STATUS_WORDS[entry.status] ?? entry.status;
        const when = ago(entry.updatedAt);
        return h(
          "li",
          {},
          h(
            "button",
            {
              type: "button",
              class: "thread-item",
              "data-thread-id": entry.id,
              "data-status": entry.status,
              "aria-current": entry.id === this.current ? "true" : null,
              tabindex: entry.id === tabStop ? "0" : "-1",
              title: `Thread ${entry.id}`,
              onclick: () => this.pick(entry.id),
            },
            h("span", { class: "thread-label" }, entry.label),
            h(
              "span",
              { class: "thread-meta" },
              h("span", { class: "thread-status" }, status),
              when ? h("span", { class: "thread-time" }, ` · ${when}`) : null,
            ),
          ),
        );
      }),
    );
    if (focusedId) this.list.querySelector<HTMLElement>(`[data-thread-id="${CSS.escape(focusedId)}"]`)?.focus();
  }

  /** Up and Down (Home, End) move between threads. */
  private onKey(e: KeyboardEvent): void {
    const buttons = [...this.list.querySelectorAll<HTMLButtonElement>("button.thread-item")];
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (at < 0) return;
    const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: buttons.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    const target = buttons[Math.max(0, Math.min(buttons.length - 1, to))];
    for (const b of buttons) b.tabIndex = b === target ? 0 : -1;
    target.focus();
  }
}
