// A pending interrupt as a form. Two shapes are understood: the tool review that
// react_agent_hitl emits (LangChain's human-in-the-loop request: action_requests +
// review_configs, answered with {decisions: [...]}) and a question (web_agent's clarify,
// plan approval and quit confirmation, answered with text or yes/no). Anything else is
// answered with JSON (or text).

import { field, h, pre, uid } from "./dom";

export interface Interrupt {
  id?: string;
  value: unknown;
}

interface ActionRequest {
  name: string;
  args: Record<string, unknown>;
  description?: string;
}

interface ReviewRequest {
  action_requests: ActionRequest[];
  review_configs?: { action_name: string; allowed_decisions: string[] }[];
  error?: string;
}

type Resume = (value: unknown) => void;

function isReview(value: unknown): value is ReviewRequest {
  return Array.isArray((value as ReviewRequest | null)?.action_requests);
}

/** The form for `interrupt`; `resume` is called with the value to resume the run with. */
export function interruptForm(interrupt: Interrupt, resume: Resume): HTMLElement {
  const value = interrupt.value;
  if (isReview(value)) return reviewForm(value, resume);
  const v = (value ?? {}) as Record<string, unknown>;
  if (typeof v.question === "string") return questionForm(v, resume);
  return jsonForm(value, resume);
}

function reviewForm(request: ReviewRequest, resume: Resume): HTMLElement {
  const allowed = new Map(
    (request.review_configs ?? []).map((c) => [c.action_name, c.allowed_decisions]),
  );
  const readers: (() => unknown)[] = [];
  const error = h("p", { class: "error", role: "alert", hidden: !request.error }, request.error ?? "");
  const groups = request.action_requests.map((action, i) => {
    const decisions = allowed.get(action.name) ?? ["approve", "edit", "reject"];
    const name = uid("decision");
    const args = h("textarea", { rows: "3", class: "mono" }, JSON.stringify(action.args, null, 2));
    const reason = h("input", { type: "text", placeholder: "Why (shown to the model)" });
    const radios = decisions.map((d, j) =>
      h(
        "label",
        { class: "choice" },
        h("input", { type: "radio", name, value: d, checked: j === 0 }),
        ` ${d[0].toUpperCase()}${d.slice(1)}`,
      ),
    );
    // Changing the arguments or writing a reason picks the matching decision.
    const pick = (d: string) => () => {
      const input = radios.map((r) => r.querySelector("input")).find((r) => r?.value === d);
      if (input) input.checked = true;
    };
    args.addEventListener("input", pick("edit"));
    reason.addEventListener("input", pick("reject"));
    readers.push(() => {
      const chosen = radios.map((r) => r.querySelector("input")).find((r) => r?.checked)?.value;
      if (chosen === "edit") {
        return { type: "edit", edited_action: { name: action.name, args: JSON.parse(args.value) } };
      }
      if (chosen === "reject") {
        return reason.value.trim()
          ? { type: "reject", message: reason.value.trim() }
          : { type: "reject" };
      }
      return { type: "approve" };
    });
    return h(
      "fieldset",
      { class: "review" },
      h("legend", {}, `Tool call ${i + 1}: ${action.name}`),
      action.description ? h("p", {}, action.description) : null,
      h("div", { class: "choices", role: "radiogroup", "aria-label": `Decision on ${action.name}` }, radios),
      field("Arguments (edit them, then choose Edit)", args),
      field("Rejection message", reason),
    );
  });
  const form = h(
    "form",
    { class: "interrupt", "aria-label": "Review the tool calls" },
    h("h3", {}, "The agent asks for your review"),
    error,
    groups,
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Submit decision")),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    try {
      resume({ decisions: readers.map((read) => read()) });
    } catch (err) {
      error.hidden = false;
      error.textContent = `The edited arguments are not valid JSON: ${(err as Error).message}`;
    }
  });
  return form;
}

function questionForm(v: Record<string, unknown>, resume: Resume): HTMLElement {
  const heading = h("h3", {}, v.type === "plan_approval" ? "Approve the plan?" : "The agent asks");
  const intro = typeof v.message_to_user === "string" && v.message_to_user ? h("p", {}, v.message_to_user) : null;
  const planTitle = uid("plan");
  const plan =
    v.plan !== undefined ? h("div", { class: "plan" }, h("h4", { id: planTitle }, "Plan"), planBody(v.plan, planTitle)) : null;
  if (v.type === "confirm_quit") {
    return h(
      "form",
      { class: "interrupt", "aria-label": "Answer the agent", onsubmit: (e: Event) => e.preventDefault() },
      heading,
      h("p", {}, String(v.question)),
      h(
        "div",
        { class: "actions" },
        h("button", { type: "button", onclick: () => resume(true) }, "Yes"),
        h("button", { type: "button", onclick: () => resume(false) }, "No"),
      ),
    );
  }
  const answer = h("textarea", { rows: "2", required: true });
  const form = h(
    "form",
    { class: "interrupt", "aria-label": "Answer the agent" },
    heading,
    intro,
    plan,
    field(String(v.question), answer),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Send answer")),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    resume(answer.value);
  });
  return form;
}

/** web_agent's plan is a list of steps: shown as a numbered list; anything else as JSON. */
function planBody(plan: unknown, titleId: string): HTMLElement {
  if (Array.isArray(plan) && plan.every((step) => typeof step === "string")) {
    return h("ol", { class: "plan-steps", "aria-labelledby": titleId }, plan.map((step) => h("li", {}, step)));
  }
  return pre(plan, "Plan");
}

function jsonForm(value: unknown, resume: Resume): HTMLElement {
  const answer = h("textarea", { rows: "3", class: "mono" });
  const form = h(
    "form",
    { class: "interrupt", "aria-label": "Answer the interrupt" },
    h("h3", {}, "The run is waiting for input"),
    pre(value, "Interrupt"),
    field("Resume value (JSON, or plain text)", answer),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Resume")),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    let parsed: unknown = answer.value;
    try {
      parsed = JSON.parse(answer.value);
    } catch {
      /* plain text */
    }
    resume(parsed);
  });
  return form;
}

/** The pending interrupts of a thread state (`interrupts`, else its tasks'). */
export function pendingInterrupts(state: {
  interrupts?: unknown;
  tasks?: { interrupts?: Interrupt[] }[];
}): Interrupt[] {
  if (Array.isArray(state.interrupts) && state.interrupts.length) return state.interrupts as Interrupt[];
  return (state.tasks ?? []).flatMap((t) => t.interrupts ?? []);
}
