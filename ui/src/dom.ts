// Small DOM helpers: the UI is plain TypeScript, so first paint costs one small script.

type Child = Node | string | number | null | undefined | false;
type Props = Record<string, unknown>;

/** An element with attributes, `on<event>` listeners and children; falsy children are skipped. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2).toLowerCase(), value as EventListener);
    } else if (key === "text") {
      el.textContent = String(value);
    } else if (key === "value" && "value" in el) {
      (el as HTMLInputElement).value = String(value);
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el: Element, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

/** Replace an element's children. */
export function replace(el: Element, ...children: (Child | Child[])[]): void {
  el.replaceChildren();
  append(el, children);
}

/** A short message for screen readers (the page's polite live region). */
export function announce(text: string): void {
  const region = document.getElementById("announce");
  if (region) region.textContent = text;
}

/** JSON shown as preformatted text. */
export function pre(value: unknown, label?: string): HTMLPreElement {
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  return h("pre", { class: "json", tabindex: "0", "aria-label": label }, text);
}

let counter = 0;
/** A unique id for pairing labels with inputs. */
export function uid(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** A labelled form field. */
export function field(label: string, control: HTMLElement, hint?: string): HTMLDivElement {
  const id = control.id || uid("f");
  control.id = id;
  const hintId = hint ? `${id}-hint` : undefined;
  if (hintId) control.setAttribute("aria-describedby", hintId);
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    control,
    hint ? h("small", { id: hintId }, hint) : null,
  );
}

/** An error shown in the page (role=alert, so it is announced). */
export function errorBox(message: string): HTMLDivElement {
  return h("div", { class: "error", role: "alert" }, message);
}

/** Put `text` on the clipboard: the Clipboard API where the page may use it (a secure
 * origin), else a hidden textarea and `copy` (a server reached over plain HTTP by name). */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    /* refused: try the old way */
  }
  const area = h("textarea", { class: "visually-hidden", readonly: true, "aria-hidden": "true" });
  area.value = text;
  document.body.append(area);
  area.select();
  let done = false;
  try {
    done = document.execCommand("copy");
  } catch {
    done = false;
  }
  area.remove();
  return done;
}

const COPY_ICON =
  '<svg class="icon" viewBox="0 0 24 24" aria-hidden="true"><rect x="9" y="9" width="11" height="11" rx="2"/><path d="M5 15V5a2 2 0 0 1 2-2h8"/></svg>';

/** A button that copies what `text()` gives at the moment it is pressed, and says so. */
export function copyButton(label: string, text: () => string, visibleText?: string): HTMLButtonElement {
  const button = h("button", { type: "button", class: "copy", "aria-label": visibleText ? null : label, title: label });
  button.innerHTML = COPY_ICON;
  const caption = visibleText ? h("span", { class: "copy-text" }, visibleText) : null;
  if (caption) button.append(caption);
  button.addEventListener("click", () => {
    void copyText(text()).then((ok) => {
      const said = ok ? "Copied" : "Could not copy";
      announce(said);
      button.dataset.copied = String(ok);
      if (caption) caption.textContent = said;
      else button.title = said;
      setTimeout(() => {
        delete button.dataset.copied;
        if (caption) caption.textContent = visibleText ?? "";
        else button.title = label;
      }, 1500);
    });
  });
  return button;
}
