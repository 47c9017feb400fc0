// Generative UI in the chat: the components a graph pushes with `push_ui_message`, rendered in
// the assistant turn they belong to, as LangGraph Platform's clients render them.
//
// A UI message (`{id, name, props, metadata}`) arrives live as a `custom` stream event of
// `type: "ui"` (`"remove-ui"` takes one away), and is kept in the thread state's `ui` key, from
// which a thread opened later draws it. Its card goes into the AI message that
// `metadata.message_id` names, else at the end of the turn it arrived in (the last turn, for one
// read from the state).
//
// The component comes from the server, which builds the config's `ui` files: `POST /ui/{assistant
// id}` answers the markup loading the graph's bundle (stylesheets and a script), which is put in
// an open shadow root on the card, so the component's styles and the page's stay apart. The
// bundle asks the page for React: that lives in its own chunk (genui_react.ts), fetched the first
// time a thread has a UI message. No `ui` in the config, a component the bundle lacks, a script
// that fails or a component that throws: the card shows the component's name and props instead.

import { errorText, postForText } from "./api";
import { h, pre } from "./dom";
import type { Transcript } from "./messages";
import { LazyModule } from "./lazy";

type Props = Record<string, unknown>;

export interface UiMessage {
  type?: "ui";
  id: string;
  name: string;
  props: Props;
  metadata?: { message_id?: string; merge?: boolean; [key: string]: unknown };
}

export interface RemoveUiMessage {
  type: "remove-ui";
  id: string;
}

/** Whether a `custom` event's data is a UI message or the removal of one. */
export function isUiEvent(data: unknown): data is UiMessage | RemoveUiMessage {
  const event = data as { type?: unknown; id?: unknown } | null;
  return (event?.type === "ui" || event?.type === "remove-ui") && typeof event.id === "string";
}

/** The React chunk, fetched the first time a thread has a UI message. */
const reactChunk = new LazyModule(() => import("./genui_react"));
type ReactHost = Awaited<ReturnType<typeof reactChunk.get>>;

/** The markup of each (assistant, component) the server gave: a component shown twice loads once. */
const markups = new Map<string, Promise<string>>();
function componentMarkup(namespace: string, name: string): Promise<string> {
  const key = JSON.stringify([namespace, name]);
  let markup = markups.get(key);
  if (!markup) {
    markup = postForText(`/ui/${encodeURIComponent(namespace)}`, { name });
    markups.set(key, markup);
    markup.catch(() => markups.delete(key)); // a refusal is asked again next time
  }
  return markup;
}

let cardCount = 0;

/** One UI message on the page: its component once loaded, else the fallback. */
class Card {
  readonly el: HTMLElement;
  /** The id of the element the bundle renders under (the SDK's "shadow root id"). */
  private readonly rootId = `olg-genui-${++cardCount}`;
  private state: "loading" | "mounted" | "fallback" | "gone" = "loading";
  private scriptsPending = 0;
  /** The index of the turn an unlinked card was first put in; it stays there over redraws. */
  turn: number | undefined;

  constructor(public message: UiMessage) {
    this.el = h("div", { class: "genui", "data-ui-id": message.id, "data-ui-name": message.name, "data-state": "loading" });
  }

  get linkedTo(): string | undefined {
    const id = this.message.metadata?.message_id;
    return typeof id === "string" && id ? id : undefined;
  }

  async load(namespace: string | undefined): Promise<void> {
    if (!namespace) return this.fallback("no assistant is chosen");
    let react: ReactHost;
    let markup: string;
    try {
      [react, markup] = await Promise.all([reactChunk.get(), componentMarkup(namespace, this.message.name)]);
    } catch (err) {
      return this.fallback(errorText(err));
    }
    if (this.state !== "loading") return;
    react.install();
    const target = h("div", { id: this.rootId, class: "genui-root" });
    this.el.replaceChildren(target);
    const shadow = target.attachShadow({ mode: "open" });
    react.expect(
      this.rootId,
      () => this.message.props,
      () => this.setState("mounted"),
      (err) => this.fallback(`the component failed: ${String(err)}`),
    );
    // A range's fragment, unlike innerHTML, runs the scripts it holds once they are in the page.
    const fragment = document.createRange().createContextualFragment(markup.replaceAll("{{shadowRootId}}", this.rootId));
    const scripts = [...fragment.querySelectorAll("script")];
    if (!scripts.length) return this.fallback("the server's markup has no script");
    this.scriptsPending = scripts.length;
    for (const script of scripts) {
      // The markup's own onload (the bundle's render) runs first: by now it has called back,
      // unless the bundle has no component of that name.
      script.addEventListener("load", () => {
        this.settled();
        if (this.state === "loading" && !react.rendered(this.rootId)) {
          this.fallback(`the graph's UI bundle has no component ${JSON.stringify(this.message.name)}`);
        }
      });
      script.addEventListener("error", () => {
        this.settled();
        this.fallback("the component's script did not load");
      });
    }
    shadow.append(fragment);
  }

  /** New props for the same id (merged into the old ones when the push asked for it). */
  update(message: UiMessage, merge = Boolean(message.metadata?.merge)): void {
    const props = merge ? { ...this.message.props, ...message.props } : message.props;
    this.message = { ...message, props };
    if (this.state === "mounted") void reactChunk.get().then((react) => react.rendered(this.rootId)?.update(props));
    else if (this.state === "fallback") this.drawFallback();
  }

  remove(): void {
    this.state = "gone";
    void reactChunk.requested?.then((react) => react.forget(this.rootId));
    if (!this.scriptsPending) {
      this.el.remove();
      return;
    }
    // Its script still loading looks the element up by id when it runs: kept, hidden, until then.
    this.el.hidden = true;
    document.body.append(this.el);
  }

  /** One of the markup's scripts loaded or failed. */
  private settled(): void {
    this.scriptsPending -= 1;
    if (this.state === "gone" && !this.scriptsPending) this.el.remove();
  }

  private setState(state: "mounted" | "fallback"): void {
    this.state = state;
    this.el.dataset.state = state;
  }

  private fallback(reason: string): void {
    if (this.state === "gone" || this.state === "fallback") return;
    console.warn(`generative UI ${JSON.stringify(this.message.name)} shown as its props: ${reason}`);
    void reactChunk.requested?.then((react) => react.forget(this.rootId));
    this.setState("fallback");
    this.el.title = reason;
    this.drawFallback();
  }

  private drawFallback(): void {
    const { name, props } = this.message;
    this.el.replaceChildren(
      h(
        "div",
        { class: "genui-fallback" },
        h("p", { class: "genui-name" }, `Component: ${name}`),
        pre(props, `Props of ${name}`),
      ),
    );
  }
}

/** The UI messages of the thread open in the chat, drawn into its transcript. */
export class GenerativeUi {
  private cards = new Map<string, Card>();

  /** `namespace` gives what `POST /ui/...` is asked with: the chat's assistant id. */
  constructor(
    private readonly transcript: Transcript,
    private readonly namespace: () => string | undefined,
  ) {}

  /** Another thread is open: its cards go. */
  clear(): void {
    for (const card of this.cards.values()) card.remove();
    this.cards.clear();
  }

  /** A live `ui` or `remove-ui` event, reduced as the state's `ui` key is. */
  apply(event: UiMessage | RemoveUiMessage): void {
    if (event.type === "remove-ui") {
      this.cards.get(event.id)?.remove();
      this.cards.delete(event.id);
      return;
    }
    const card = this.cards.get(event.id);
    if (card) card.update(event);
    else this.add(event);
    this.place();
  }

  /** The thread state's `ui` key: what it holds is shown (cards already drawn kept as they
  are), what it no longer holds goes. */
  setAll(messages: UiMessage[]): void {
    const ids = new Set(messages.map((m) => m.id));
    for (const [id, card] of this.cards) {
      if (ids.has(id)) continue;
      card.remove();
      this.cards.delete(id);
    }
    for (const message of messages) {
      const card = this.cards.get(message.id);
      if (!card) this.add(message);
      else if (JSON.stringify(card.message.props) !== JSON.stringify(message.props)) card.update(message, false);
    }
    this.place();
  }

  /** Put every card where it belongs: after the transcript was drawn again, or grew the AI
  message a card names. */
  place(): void {
    for (const card of this.cards.values()) {
      const linked = card.linkedTo;
      const part = linked
        ? this.transcript.log.querySelector<HTMLElement>(`.msg.ai .part[data-id="${CSS.escape(linked)}"]`)
        : null;
      if (part) {
        if (card.el.parentElement !== part) part.append(card.el);
        continue;
      }
      const [body, index] = this.transcript.turnBody(card.turn);
      card.turn = index;
      // At the end of its turn: after the text and tools drawn since (other cards may follow).
      let next = card.el.parentElement === body ? card.el.nextElementSibling : null;
      while (next?.classList.contains("genui")) next = next.nextElementSibling;
      if (card.el.parentElement !== body || next) body.append(card.el);
    }
  }

  private add(message: UiMessage): void {
    const card = new Card(message);
    this.cards.set(message.id, card);
    this.place(); // in the page before its script runs: the bundle looks its element up by id
    void card.load(this.namespace());
  }
}
