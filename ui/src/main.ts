// The page: four views behind hash routes (#/chat, #/threads, #/assistants, #/episodes), and a
// run's trace (#/trace), opened from a thread or the chat.
import "./styles.css";
import { askToken } from "./api";
import { AssistantsView } from "./assistants";
import { ChatView } from "./chat";
import { EpisodesView } from "./episodes";
import { setUpThemeToggle } from "./theme";
import { LazyModule } from "./lazy";
import { ThreadsView } from "./threads";

interface View {
  root: HTMLElement;
  load(): Promise<void>;
}

const factories: Record<string, () => View> = {
  chat: () => new ChatView(),
  threads: () => new ThreadsView(),
  assistants: () => new AssistantsView(),
  episodes: () => new EpisodesView(),
  trace: () => lazyView(traceModule, (m) => new m.TraceView()),
};
const views = new Map<string, View>();
const traceModule = new LazyModule(() => import("./trace"));

/** A view whose code is a chunk fetched the first time it is opened (the run trace). */
function lazyView<M>(module: LazyModule<M>, make: (m: M) => View): View {
  const root = document.createElement("section");
  root.textContent = "Loading…";
  let view: View | null = null;
  return {
    root,
    async load() {
      view ??= make(await module.get());
      root.replaceWith(view.root);
      this.root = view.root;
      await view.load();
    },
  };
}
const main = document.getElementById("view") as HTMLElement;

function route(): void {
  const name = location.hash.replace(/^#\/?/, "").split("?")[0] || "chat";
  const key = name in factories ? name : "chat";
  let view = views.get(key);
  const fresh = !view;
  if (!view) {
    view = factories[key]();
    views.set(key, view);
  }
  main.replaceChildren(view.root);
  document.body.dataset.view = key;
  document.querySelectorAll<HTMLAnchorElement>("nav a").forEach((a) => {
    if (a.dataset.view === key) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  });
  document.title = `${key[0].toUpperCase()}${key.slice(1)} · Open LangGraph`;
  if (fresh || key !== "episodes") void view.load();
}

window.addEventListener("hashchange", route);
document.getElementById("token-button")?.addEventListener("click", () => {
  void askToken().then(() => {
    views.clear();
    route();
  });
});
const themeButton = document.getElementById("theme-button");
if (themeButton) setUpThemeToggle(themeButton);
route();
