// WebShop episodes as `olg eval webshop --record DIR` writes them (one JSON snapshot per
// episode: record + graph steps with their environment steps), stepped through one action at
// a time; and a results file (`--out`, JSON lines) as a summary table with a reward plot.

import { errorBox, field, h, pre, replace } from "./dom";

interface EnvStep {
  action: string;
  observation: string;
  reward: number;
  done: boolean;
}

interface Recording {
  record: Record<string, unknown>;
  steps: { node: string; env?: EnvStep[]; model_calls?: { output?: { content?: unknown } | null }[] }[];
}

export interface Action extends EnvStep {
  node: string;
  /** The page the agent saw when it chose the action: the previous step's result. */
  seen: string;
  thought: string;
}

/** The episode's environment actions in order, each with the page it was chosen on. */
export function actionsOf(recording: Recording): Action[] {
  const actions: Action[] = [];
  let seen = "(the shop's start page)";
  for (const step of recording.steps ?? []) {
    const thought = (step.model_calls ?? [])
      .map((c) => (typeof c.output?.content === "string" ? c.output.content : ""))
      .filter(Boolean)
      .join("\n");
    for (const env of step.env ?? []) {
      actions.push({ ...env, node: step.node, seen, thought });
      seen = env.observation;
    }
  }
  return actions;
}

interface Result {
  goal_index: number;
  reward?: number | null;
  steps?: number;
  bought?: boolean;
  error?: string | null;
  agent?: string;
  model?: string;
}

const mean = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** The figures `olg eval` prints (evals/summary.py): score = 100 x mean reward, success rate
 * = 100 x share of reward 1. */
export function summarize(rows: Result[]) {
  const rewards = rows.map((r) => Number(r.reward ?? 0));
  return {
    episodes: rows.length,
    errors: rows.filter((r) => r.error).length,
    score: 100 * mean(rewards),
    success_rate: 100 * mean(rewards.map((r) => (r === 1 ? 1 : 0))),
    bought_rate: 100 * mean(rows.map((r) => (r.bought ? 1 : 0))),
    mean_steps: mean(rows.map((r) => r.steps ?? 0)),
  };
}

function rewardPlot(rows: Result[]): SVGSVGElement {
  const NS = "http://www.w3.org/2000/svg";
  const [bw, height, pad] = [18, 120, 24];
  const width = Math.max(200, rows.length * (bw + 4) + pad * 2);
  const el = (tag: string, attrs: Record<string, string | number>, text?: string) => {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const root = el("svg", { viewBox: `0 0 ${width} ${height + pad * 2}`, width, height: height + pad * 2, role: "img", class: "plot" }) as SVGSVGElement;
  root.append(el("title", {}, `Reward per goal: ${rows.map((r) => `goal ${r.goal_index} ${Number(r.reward ?? 0).toFixed(2)}`).join(", ")}`));
  root.append(el("line", { x1: pad, y1: pad + height, x2: width - pad, y2: pad + height, stroke: "#333" }));
  root.append(el("text", { x: 2, y: pad + 4, "font-size": 11 }, "1.0"));
  root.append(el("text", { x: 2, y: pad + height, "font-size": 11 }, "0"));
  rows.forEach((r, i) => {
    const v = Math.max(0, Math.min(1, Number(r.reward ?? 0)));
    const x = pad + i * (bw + 4);
    root.append(el("rect", { x, y: pad + height * (1 - v), width: bw, height: Math.max(1, height * v), fill: v === 1 ? "#1a7f37" : "#0b5cad" }));
    root.append(el("text", { x: x + bw / 2, y: pad + height + 14, "font-size": 10, "text-anchor": "middle" }, String(r.goal_index)));
  });
  return root;
}

export class EpisodesView {
  readonly root = h("section", { class: "episodes", "aria-labelledby": "episodes-title" });
  private viewer = h("div", { class: "episode" });
  private summary = h("div", { class: "summary" });
  private errors = h("div", {});
  private actions: Action[] = [];
  private index = 0;
  private record: Record<string, unknown> = {};

  constructor() {
    const episodeFile = h("input", { type: "file", accept: ".json,application/json" });
    const resultsFile = h("input", { type: "file", accept: ".jsonl,.json,application/json" });
    episodeFile.addEventListener("change", () => void this.openEpisode(episodeFile.files?.[0]));
    resultsFile.addEventListener("change", () => void this.openResults(resultsFile.files?.[0]));
    replace(
      this.root,
      h("h2", { id: "episodes-title" }, "WebShop episodes"),
      h(
        "div",
        { class: "pickers" },
        field("Episode recording", episodeFile, "A file from olg eval webshop --record DIR"),
        field("Results file", resultsFile, "The JSON lines of olg eval webshop --out"),
      ),
      this.errors,
      this.viewer,
      this.summary,
    );
  }

  async load(): Promise<void> {}

  private async openEpisode(file: File | undefined): Promise<void> {
    if (!file) return;
    replace(this.errors);
    try {
      const recording = JSON.parse(await file.text()) as Recording;
      if (!recording.record || !Array.isArray(recording.steps)) throw new Error("not an episode recording (no record and steps)");
      this.record = recording.record;
      this.actions = actionsOf(recording);
      this.index = 0;
      this.draw();
    } catch (err) {
      this.errors.append(errorBox(`Could not open ${file.name}: ${(err as Error).message}`));
    }
  }

  private draw(): void {
    const r = this.record;
    const a = this.actions[this.index];
    const prev = h("button", { type: "button", disabled: this.index === 0, onclick: () => this.go(-1) }, "Previous step");
    const next = h("button", { type: "button", disabled: this.index >= this.actions.length - 1, onclick: () => this.go(1) }, "Next step");
    replace(
      this.viewer,
      h("h3", {}, `Goal ${String(r.goal_index)} · ${String(r.agent ?? "")} · reward ${String(r.reward ?? "-")}`),
      h("p", { class: "instruction" }, h("strong", {}, "Instruction: "), String(r.instruction ?? "")),
      a
        ? h(
            "div",
            { class: "step" },
            h("p", { class: "step-count", "aria-live": "polite" }, `Step ${this.index + 1} of ${this.actions.length} (${a.node})`),
            h("h4", {}, "Page the agent saw"),
            pre(a.seen, "Page the agent saw"),
            a.thought ? h("details", {}, h("summary", {}, "Model output"), pre(a.thought, "Model output")) : null,
            h("p", { class: "action" }, h("strong", {}, "Action: "), h("code", {}, a.action)),
            h("p", { class: "reward" }, h("strong", {}, "Reward: "), `${a.reward}${a.done ? " (episode over)" : ""}`),
            h("div", { class: "actions" }, prev, next),
          )
        : h("p", {}, "This episode took no actions."),
    );
  }

  private go(delta: number): void {
    this.index = Math.max(0, Math.min(this.actions.length - 1, this.index + delta));
    const focusNext = delta > 0;
    this.draw();
    const buttons = this.viewer.querySelectorAll<HTMLButtonElement>(".step .actions button");
    const target = focusNext ? buttons[1] : buttons[0];
    (target && !target.disabled ? target : (buttons[0]?.disabled ? buttons[1] : buttons[0]))?.focus();
  }

  private async openResults(file: File | undefined): Promise<void> {
    if (!file) return;
    replace(this.errors);
    const rows: Result[] = [];
    for (const line of (await file.text()).split("\n")) {
      if (!line.trim()) continue;
      try {
        rows.push(JSON.parse(line) as Result);
      } catch {
        /* a torn last line, as the harness tolerates */
      }
    }
    if (!rows.length) {
      this.errors.append(errorBox(`${file.name} holds no episode records.`));
      return;
    }
    rows.sort((a, b) => a.goal_index - b.goal_index);
    const s = summarize(rows);
    const cell = (label: string, value: string) => h("tr", {}, h("th", { scope: "row" }, label), h("td", {}, value));
    replace(
      this.summary,
      h("h3", {}, `Evaluation: ${rows[0].agent ?? ""} / ${rows[0].model ?? ""}`),
      h(
        "table",
        { class: "summary-table" },
        h("caption", {}, `${file.name}: ${s.episodes} episodes`),
        h(
          "tbody",
          {},
          cell("Episodes (errors)", `${s.episodes} (${s.errors})`),
          cell("Score", s.score.toFixed(1)),
          cell("Success rate", `${s.success_rate.toFixed(1)}%`),
          cell("Bought", `${s.bought_rate.toFixed(1)}%`),
          cell("Mean steps", s.mean_steps.toFixed(1)),
        ),
      ),
      h("h4", {}, "Reward per goal"),
      rewardPlot(rows),
    );
  }
}
