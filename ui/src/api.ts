// The one way the page talks to the server: LangChain's JS client on the page's own origin,
// with the token the person gave when the server asks for one (401/403).
import { Client } from "@langchain/langgraph-sdk/client";
import { field, h } from "./dom";

const TOKEN_KEY = "olg.ui.token";
const HEADER_KEY = "olg.ui.header";
export type TokenHeader = "x-api-key" | "authorization";

let cached: Client | null = null;

function headers(): Record<string, string> {
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (!token) return {};
  const header = (sessionStorage.getItem(HEADER_KEY) as TokenHeader | null) ?? "x-api-key";
  return header === "authorization" ? { authorization: `Bearer ${token}` } : { "x-api-key": token };
}

/** Where the API is: this page's origin, under the server's `http.mount_prefix` when it has
 * one (the server names it in a meta tag of the page it serves there). */
function apiUrl(): string {
  const meta = document.querySelector('meta[name="olg-mount-prefix"]');
  return window.location.origin + (meta?.getAttribute("content") ?? "");
}

/** The SDK client for this page's origin and the current token. */
export function client(): Client {
  if (!cached) {
    cached = new Client({
      apiUrl: apiUrl(),
      apiKey: null,
      defaultHeaders: headers(),
      // The SDK retries failed calls; in a page an error is better shown at once.
      callerOptions: { maxRetries: 0 },
    });
  }
  return cached;
}

/** POST `body` as JSON to an API path the SDK has no method for, with the page's token; the
 * answer's text. A refusal throws what `errorText` reads (its status and text). */
export async function postForText(path: string, body: unknown): Promise<string> {
  const response = await fetch(apiUrl() + path, {
    method: "POST",
    headers: { ...headers(), "content-type": "application/json", accept: "text/html" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw Object.assign(new Error(`HTTP ${response.status}`), { status: response.status, text });
  return text;
}

/** GET an API path the SDK has no method for, as JSON, with the page's token; through `call`
 * a 401 asks for a token as the SDK's calls do. */
export async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(apiUrl() + path, { headers: { ...headers(), accept: "application/json" } });
  const text = await response.text();
  if (!response.ok) throw Object.assign(new Error(`HTTP ${response.status}`), { status: response.status, text });
  return JSON.parse(text) as T;
}

export function setToken(token: string, header: TokenHeader): void {
  if (token) {
    sessionStorage.setItem(TOKEN_KEY, token);
    sessionStorage.setItem(HEADER_KEY, header);
  } else {
    sessionStorage.removeItem(TOKEN_KEY);
  }
  cached = null;
}

/** The HTTP status of an SDK error, if it has one. */
export function statusOf(err: unknown): number | undefined {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === "number" ? status : undefined;
}

/** What to show a person for a failed call: the server's `detail` when it sent one. */
export function errorText(err: unknown): string {
  const e = err as { status?: number; text?: string; message?: string };
  if (typeof e?.text === "string") {
    try {
      const body = JSON.parse(e.text) as { detail?: unknown; message?: unknown };
      const detail = body.detail ?? body.message;
      if (detail !== undefined) {
        return `${e.status ?? "Error"}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`;
      }
    } catch {
      /* not JSON: fall through */
    }
  }
  return e?.message ?? String(err);
}

let pendingToken: Promise<void> | null = null;

/** Ask for a token in a modal dialog; resolves when the person saved one. */
export function askToken(reason?: string): Promise<void> {
  if (pendingToken) return pendingToken;
  pendingToken = new Promise<void>((resolve) => {
    // Masked as it is typed; "Show" reveals it to check a pasted token.
    const input = h("input", { type: "password", autocomplete: "off", spellcheck: "false", required: true });
    const show = h("button", { type: "button", class: "secondary reveal", "aria-pressed": "false" }, "Show");
    show.addEventListener("click", () => {
      const reveal = input.type === "password";
      input.type = reveal ? "text" : "password";
      show.setAttribute("aria-pressed", String(reveal));
      input.focus();
    });
    const header = h(
      "select",
      {},
      h("option", { value: "x-api-key" }, "x-api-key header"),
      h("option", { value: "authorization" }, "Authorization: Bearer"),
    );
    header.value = sessionStorage.getItem(HEADER_KEY) ?? "x-api-key";
    const dialog = h(
      "dialog",
      { class: "token-dialog", "aria-labelledby": "token-title" },
      h(
        "form",
        { method: "dialog" },
        h("h2", { id: "token-title" }, "This server needs a token"),
        reason ? h("p", { class: "error", role: "alert" }, reason) : null,
        h("div", { class: "token-row" }, field("Token", input), show),
        field("Send it as", header),
        h("div", { class: "actions" }, h("button", { type: "submit" }, "Save token")),
      ),
    );
    dialog.addEventListener("close", () => {
      setToken(input.value.trim(), header.value as TokenHeader);
      dialog.remove();
      pendingToken = null;
      resolve();
    });
    document.body.append(dialog);
    dialog.showModal();
    input.focus();
  });
  return pendingToken;
}

/** Run an API call; on 401 (no valid token) ask for a token and try again. A 403 is the
server refusing this user an action: shown as an error, since another token would not help. */
export async function call<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await fn(client());
    } catch (err) {
      if (statusOf(err) !== 401) throw err;
      await askToken(errorText(err));
    }
  }
}
