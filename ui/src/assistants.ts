// Assistants: the graph drawn from /assistants/{id}/graph (graph_panel.ts), its versions,
// and the context (or config) schema as a form whose submission saves a new version of the
// assistant.

import type { Assistant } from "@langchain/langgraph-sdk";
import { call, errorText } from "./api";
import { announce, errorBox, field, h, replace } from "./dom";
import { GraphPanel } from "./graph_panel";

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  title?: string;
}

function kindOf(schema: JsonSchema): string {
  if (schema.enum) return "enum";
  const types = schema.anyOf ? schema.anyOf.map((s) => s.type) : [schema.type];
  const flat = types.flat().filter((t) => t && t !== "null");
  return flat.length === 1 ? String(flat[0]) : "json";
}

/** One form control per property; `read()` gives the values typed in (blank ones left out). */
export function schemaForm(schema: JsonSchema, current: Record<string, unknown>) {
  const readers: [string, () => unknown][] = [];
  const fields = Object.entries(schema.properties ?? {}).map(([name, prop]) => {
    const kind = kindOf(prop);
    // null (an unset optional setting) shows as an empty field, never as the word "null".
    const value = current[name] ?? prop.default ?? undefined;
    let control: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;
    if (kind === "boolean") {
      control = h("input", { type: "checkbox", checked: value === true });
      readers.push([name, () => (control as HTMLInputElement).checked]);
    } else if (kind === "enum") {
      control = h(
        "select",
        {},
        (prop.enum ?? []).map((v) => h("option", { value: JSON.stringify(v) }, v === null ? "(none)" : String(v))),
      );
      if (value !== undefined) control.value = JSON.stringify(value);
      readers.push([name, () => JSON.parse(control.value)]);
    } else if (kind === "integer" || kind === "number") {
      control = h("input", { type: "number", step: kind === "integer" ? "1" : "any", value: value ?? "" });
      readers.push([name, () => (control.value === "" ? undefined : Number(control.value))]);
    } else if (kind === "string") {
      const long = typeof value === "string" && value.length > 60;
      control = long ? h("textarea", { rows: "4" }, value as string) : h("input", { type: "text", value: value ?? "" });
      readers.push([name, () => (control.value === "" ? undefined : control.value)]);
    } else {
      control = h("textarea", { rows: "2", class: "mono" }, value === undefined ? "" : JSON.stringify(value));
      readers.push([name, () => (control.value.trim() === "" ? undefined : JSON.parse(control.value))]);
    }
    return field(prop.title ?? name, control, prop.description);
  });
  const read = (): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [name, get] of readers) {
      const v = get();
      if (v !== undefined) out[name] = v;
    }
    return out;
  };
  return { fields, read };
}

export class AssistantsView {
  readonly root = h("section", { class: "assistants", "aria-labelledby": "assistants-title" });
  private list = h("ul", { class: "assistant-list", "aria-label": "Assistants" });
  private detail = h("div", {});
  private errors = h("div", {});
  /** Counts `open` calls: only the newest may draw, so a slower earlier one cannot replace
   * the form a person is already filling in. */
  private opening = 0;

  constructor() {
    replace(
      this.root,
      h("h2", { id: "assistants-title" }, "Assistants"),
      this.errors,
      h("div", { class: "split" }, h("div", { class: "pane" }, this.list), h("div", { class: "pane wide" }, this.detail)),
    );
  }

  /** List the assistants (with their current versions) and open `selected`, else the first. */
  async load(selected?: string): Promise<void> {
    replace(this.errors);
    try {
      const assistants = await call((c) => c.assistants.search({ limit: 100 }));
      replace(
        this.list,
        assistants.map((a) =>
          h(
            "li",
            {},
            h(
              "button",
              { type: "button", class: "link", "data-id": a.assistant_id, onclick: () => void this.open(a.assistant_id) },
              `${a.name} (${a.graph_id}) v${a.version}`,
            ),
          ),
        ),
      );
      const pick = assistants.find((a) => a.assistant_id === selected) ?? assistants[0];
      if (pick) await this.open(pick.assistant_id);
    } catch (err) {
      this.errors.append(errorBox(errorText(err)));
    }
  }

  private async open(assistantId: string): Promise<void> {
    const ticket = ++this.opening;
    replace(this.errors);
    // Nothing of the assistant shown before stays fillable while this one loads.
    replace(this.detail, h("p", { role: "status" }, "Loading…"));
    for (const button of this.list.querySelectorAll<HTMLElement>("button[data-id]")) {
      if (button.dataset.id === assistantId) button.setAttribute("aria-current", "true");
      else button.removeAttribute("aria-current");
    }
    try {
      const [assistant, schemas, versions] = await Promise.all([
        call((c) => c.assistants.get(assistantId)),
        call((c) => c.assistants.getSchemas(assistantId)),
        call((c) => c.assistants.getVersions(assistantId, { limit: 20 })),
      ]);
      if (ticket !== this.opening) return;
      const useContext = Boolean((schemas.context_schema as JsonSchema | null)?.properties);
      const schema = ((useContext ? schemas.context_schema : schemas.config_schema) ?? {}) as JsonSchema;
      const current = (useContext ? assistant.context : assistant.config?.configurable) as Record<string, unknown> | undefined;
      const { fields, read } = schemaForm(schema, current ?? {});
      const form = h(
        "form",
        { class: "schema-form", "aria-label": "New version" },
        h("h4", {}, useContext ? "Context for a new version" : "Configuration for a new version"),
        fields.length ? fields : h("p", {}, "This graph declares no settings."),
        h("div", { class: "actions" }, h("button", { type: "submit", disabled: !fields.length }, "Save as new version")),
      );
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        void this.save(assistant, useContext, read);
      });
      const graph = new GraphPanel(false);
      void graph.show(assistant.assistant_id, assistant.graph_id);
      replace(
        this.detail,
        h("h3", {}, `${assistant.name} · ${assistant.graph_id}`),
        h("p", {}, `Version ${assistant.version} · ${assistant.assistant_id}`),
        h("h4", {}, "Graph"),
        graph.root,
        h("h4", {}, "Versions"),
        h("ul", { class: "versions" }, versions.map((v) => h("li", {}, `v${v.version} · ${new Date(v.created_at).toLocaleString()}`))),
        form,
      );
    } catch (err) {
      this.errors.append(errorBox(errorText(err)));
    }
  }

  private async save(assistant: Assistant, useContext: boolean, read: () => Record<string, unknown>): Promise<void> {
    try {
      const values = read();
      const updated = await call((c) =>
        c.assistants.update(assistant.assistant_id, useContext ? { context: values } : { config: { configurable: values } }),
      );
      announce(`Saved version ${updated.version}`);
      // The list shows each assistant's version: redraw it too, keeping this one open.
      await this.load(assistant.assistant_id);
    } catch (err) {
      this.errors.append(errorBox(`Could not save: ${errorText(err)}`));
    }
  }
}
