// Pending interrupts as forms. Tool reviews in the format of LangChain v1's
// HumanInTheLoopMiddleware get one review form: its `batched` request (action_requests +
// review_configs, answered with {decisions: [...]}, as react_agent_hitl sends too) and its
// `per_call` approvals (one `tool_approval` interrupt per call, each answered with a single
// decision keyed by interrupt id, its allowed decisions in `response_schema`). A question
// (web_agent's clarify, plan approval and quit confirmation) is answered with text or yes/no;
// anything else with JSON (or text).

import { field, h, pre, uid } from "./dom";

export interface Interrupt {
  id?: string;
  value: unknown;
  response_schema?: Record<string, unknown>;
}

export type Decision = "approve" | "edit" | "reject" | "respond";
const DECISIONS: Decision[] = ["approve", "edit", "reject", "respond"];

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

interface ToolApproval {
  type: "tool_approval";
  tool_call_id: string;
  name: string;
  args: Record<string, unknown>;
  description?: string;
}

/** One tool call to review, with the decisions its reviewer may make. */
interface ReviewItem extends ActionRequest {
  allowed: Decision[];
}

type Resume = (value: unknown) => void;

/** What a page does with the answers: resume the run, or end the review without one. */
export interface Answer {
  resume: Resume;
  end: () => void;
}

function isReview(value: unknown): value is ReviewRequest {
  return Array.isArray((value as ReviewRequest | null)?.action_requests);
}

function isToolApproval(it: Interrupt): boolean {
  return (it.value as ToolApproval | null)?.type === "tool_approval" && typeof it.id === "string";
}

/** The forms for a thread's pending interrupts: the per-call tool approvals together in one
review (resumed with {interrupt id: decision}), every other interrupt in its own form (its
answer keyed by its id when several are pending). */
export function interruptForms(interrupts: Interrupt[], answer: Answer): HTMLElement[] {
  const approvals = interrupts.filter(isToolApproval);
  const others = interrupts.filter((it) => !isToolApproval(it));
  const keyed = (it: Interrupt) => (value: unknown) =>
    answer.resume(interrupts.length > 1 && it.id ? { [it.id]: value } : value);
  const forms = others.map((it) => interruptForm(it, { ...answer, resume: keyed(it) }));
  if (approvals.length) {
    const items = approvals.map((it) => {
      const v = it.value as ToolApproval;
      return { name: v.name, args: v.args ?? {}, description: v.description, allowed: allowedBy(it.response_schema) };
    });
    const resume = (decisions: unknown[]) =>
      answer.resume(Object.fromEntries(approvals.map((it, i) => [it.id, decisions[i]])));
    forms.unshift(reviewForm(items, undefined, resume, answer.end));
  }
  return forms;
}

/** The form for one interrupt other than a per-call approval. */
function interruptForm(interrupt: Interrupt, answer: Answer): HTMLElement {
  const value = interrupt.value;
  if (isReview(value)) {
    const configs = value.review_configs ?? [];
    const items = value.action_requests.map((action, i) => {
      // One config per action, in order, as the middleware sends them; else the action's by name.
      const config = configs.length === value.action_requests.length ? configs[i] : configs.find((c) => c.action_name === action.name);
      return { ...action, allowed: known(config?.allowed_decisions) };
    });
    return reviewForm(items, value.error, (decisions) => answer.resume({ decisions }), answer.end);
  }
  const v = (value ?? {}) as Record<string, unknown>;
  if (typeof v.question === "string") return questionForm(v, answer.resume);
  return jsonForm(value, answer.resume);
}

function known(decisions: unknown): Decision[] {
  const list = Array.isArray(decisions) ? DECISIONS.filter((d) => decisions.includes(d)) : [];
  return list.length ? list : DECISIONS;
}

/** The decision types a per-call `response_schema` allows: the `type` constant of each
branch of its union (or of the one decision it is). Without a schema, all four. */
export function allowedBy(schema: Record<string, unknown> | undefined): Decision[] {
  if (!schema) return DECISIONS;
  const defs = (schema.$defs ?? schema.definitions ?? {}) as Record<string, Record<string, unknown>>;
  const resolve = (s: Record<string, unknown>) =>
    typeof s.$ref === "string" ? (defs[s.$ref.split("/").pop() ?? ""] ?? {}) : s;
  const branches = (schema.oneOf ?? schema.anyOf ?? [schema]) as Record<string, unknown>[];
  const types = branches.map((b) => {
    const type = (resolve(b).properties as Record<string, { const?: unknown; enum?: unknown[] }> | undefined)?.type;
    return type?.const ?? type?.enum?.[0];
  });
  return known(types);
}

const MEANING: Record<Decision, string> = {
  approve: "Approve runs the call as it is",
  edit: "Edit runs it with the arguments as you change them",
  reject: "Reject does not run it and tells the agent so (with your reason, if you give one)",
  respond: "Respond does not run it and gives the agent your answer as the tool's result",
};

function reviewForm(
  items: ReviewItem[],
  requestError: string | undefined,
  resume: (decisions: unknown[]) => void,
  end: () => void,
): HTMLElement {
  const readers: (() => unknown)[] = [];
  const error = h("p", { class: "error", role: "alert", hidden: !requestError }, requestError ?? "");
  const groups = items.map((action, i) => {
    const name = uid("decision");
    const title = `Tool call ${i + 1}: ${action.name}`;
    const allows = (d: Decision) => action.allowed.includes(d);
    const args = h("textarea", { rows: "3", class: "mono" }, JSON.stringify(action.args, null, 2));
    const reason = h("input", { type: "text", placeholder: "Why (the agent reads it)" });
    const response = h("textarea", { rows: "2", placeholder: "The answer the agent gets instead of running the tool" });
    const radios = action.allowed.map((d, j) =>
      h(
        "label",
        { class: "choice" },
        h("input", { type: "radio", name, value: d, checked: j === 0 }),
        ` ${d[0].toUpperCase()}${d.slice(1)}`,
      ),
    );
    const hintId = uid("meaning");
    const hint = h("small", { id: hintId, class: "meaning" }, `${action.allowed.map((d) => MEANING[d]).join("; ")}.`);
    // Changing the arguments or writing a reason or an answer picks the matching decision.
    const pick = (d: Decision) => () => {
      const input = radios.map((r) => r.querySelector("input")).find((r) => r?.value === d);
      if (input) input.checked = true;
    };
    args.addEventListener("input", pick("edit"));
    reason.addEventListener("input", pick("reject"));
    response.addEventListener("input", pick("respond"));
    readers.push(() => {
      const chosen = radios.map((r) => r.querySelector("input")).find((r) => r?.checked)?.value as Decision;
      if (chosen === "edit") {
        let edited: unknown;
        try {
          edited = JSON.parse(args.value);
        } catch (err) {
          throw new Error(`${title}: the edited arguments are not valid JSON: ${(err as Error).message}`);
        }
        if (edited === null || typeof edited !== "object" || Array.isArray(edited)) {
          throw new Error(`${title}: the edited arguments must be a JSON object ({"name": value, ...})`);
        }
        return { type: "edit", edited_action: { name: action.name, args: edited } };
      }
      if (chosen === "reject") {
        return reason.value.trim() ? { type: "reject", message: reason.value.trim() } : { type: "reject" };
      }
      if (chosen === "respond") {
        if (!response.value.trim()) throw new Error(`${title}: write the answer to give the agent, or choose another decision`);
        return { type: "respond", message: response.value.trim() };
      }
      return { type: "approve" };
    });
    return h(
      "fieldset",
      { class: "review" },
      h("legend", {}, title),
      action.description ? h("p", { class: "description" }, action.description) : null,
      h(
        "div",
        { class: "choices", role: "radiogroup", "aria-label": `Decision on tool call ${i + 1}`, "aria-describedby": hintId },
        radios,
      ),
      hint,
      allows("edit")
        ? field("Arguments (edit them, then choose Edit)", args)
        : h("div", { class: "field" }, h("span", { class: "label" }, "Arguments"), pre(action.args, `Arguments of tool call ${i + 1}`)),
      allows("reject") ? field("Rejection message (optional)", reason) : null,
      allows("respond") ? field("Your response", response) : null,
    );
  });
  const endHint = uid("end");
  const form = h(
    "form",
    { class: "interrupt", "aria-label": "Review the tool calls" },
    h("h3", {}, "The agent asks for your review"),
    error,
    groups,
    h(
      "div",
      { class: "actions" },
      h("button", { type: "submit" }, "Submit decision"),
      h("button", { type: "button", class: "secondary", "aria-describedby": endHint, onclick: () => end() }, "End the review"),
    ),
    h("small", { id: endHint, class: "hint" }, "Ending the review runs none of these calls and stops the agent here; write again to go on."),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    try {
      resume(readers.map((read) => read()));
    } catch (err) {
      error.hidden = false;
      error.textContent = (err as Error).message;
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
