// Acting on a checkpoint, from the threads view and the run trace alike: "fork from here" (a
// run from that checkpoint: LangGraph writes its steps as a new branch) and "edit state" (an
// update at that checkpoint, as `update_state` makes one: a new checkpoint after it).

import type { Thread, ThreadState } from "@langchain/langgraph-sdk";
import { call, errorText } from "./api";
import { announce, errorBox, field, h, replace } from "./dom";

/** The assistant a thread's runs go to: the one its metadata names. */
function assistantOf(thread: Thread): string {
  const meta = (thread.metadata ?? {}) as Record<string, unknown>;
  return String(meta.assistant_id ?? meta.graph_id ?? "");
}

/** The keys of `edited` whose value differs from `original`'s: only those are sent, so that a
 * reducer (a list that adds, `add_messages`) does not get what it already holds again. */
export function changedKeys(original: Record<string, unknown>, edited: Record<string, unknown>): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(edited)) {
    if (JSON.stringify(original[key]) !== JSON.stringify(value)) changed[key] = value;
  }
  return changed;
}

/** A "Fork from here" form for `cp`; `after` runs once the branch's run has ended. */
export function forkForm(thread: Thread, cp: ThreadState, after: () => Promise<void>): HTMLElement {
  const id = cp.checkpoint?.checkpoint_id ?? "";
  const values = (cp.values ?? {}) as Record<string, unknown>;
  const withMessage = "messages" in values;
  const message = h("input", { type: "text", placeholder: "A new message from this point" });
  const errors = h("div", {});
  const form = h(
    "form",
    { class: "fork", "aria-label": "Fork from this checkpoint" },
    withMessage ? field("Message for the new branch", message) : null,
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Fork from here")),
    errors,
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    replace(errors);
    const assistantId = assistantOf(thread);
    if (!assistantId) {
      errors.append(errorBox("This thread's metadata names no assistant to run."));
      return;
    }
    const input = withMessage ? { messages: [{ role: "user", content: message.value }] } : null;
    void call((c) => c.runs.wait(thread.thread_id, assistantId, { input, checkpointId: id }))
      .then(async () => {
        announce("Forked: a new branch was added");
        await after();
      })
      .catch((err: unknown) => errors.append(errorBox(`Fork failed: ${errorText(err)}`)));
  });
  return form;
}

/** An "Edit state" form for `cp`: its values as JSON; the keys changed are written as an
 * update at that checkpoint. `after` runs once it is stored. */
export function editStateForm(thread: Thread, cp: ThreadState, after: () => Promise<void>): HTMLElement {
  const id = cp.checkpoint?.checkpoint_id ?? "";
  const values = (cp.values ?? {}) as Record<string, unknown>;
  const area = h("textarea", { class: "mono state-editor", rows: "8", spellcheck: "false" });
  area.value = JSON.stringify(values, null, 2);
  const errors = h("div", {});
  const form = h(
    "form",
    { class: "edit-state", "aria-label": "Edit the state at this checkpoint" },
    field("State (JSON)", area, "Only the keys you change are written, through the graph's reducers."),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "secondary" }, "Save as a new checkpoint")),
    errors,
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    replace(errors);
    let edited: unknown;
    try {
      edited = JSON.parse(area.value);
    } catch {
      errors.append(errorBox("The state must be JSON."));
      return;
    }
    if (!edited || typeof edited !== "object" || Array.isArray(edited)) {
      errors.append(errorBox("The state must be a JSON object."));
      return;
    }
    const changed = changedKeys(values, edited as Record<string, unknown>);
    if (!Object.keys(changed).length) {
      errors.append(errorBox("Nothing changed."));
      return;
    }
    void call((c) => c.threads.updateState(thread.thread_id, { values: changed, checkpointId: id }))
      .then(async () => {
        announce("Saved: the state has a new checkpoint");
        await after();
      })
      .catch((err: unknown) => errors.append(errorBox(`Could not save: ${errorText(err)}`)));
  });
  return form;
}
