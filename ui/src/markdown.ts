// Assistant messages as Markdown: `marked` (GitHub-flavoured) renders, highlight.js (its core
// and a few languages) colours fenced code, and DOMPurify removes anything that could run or
// restyle the page (scripts, event handlers, styles, forms) before it reaches the DOM. Each
// code block gets a header with its language and a copy button.

import DOMPurify from "dompurify";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import diff from "highlight.js/lib/languages/diff";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import sql from "highlight.js/lib/languages/sql";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import { Marked } from "marked";
import { copyButton, h } from "./dom";

for (const [name, language] of Object.entries({ bash, diff, javascript, json, python, sql, xml, yaml })) {
  hljs.registerLanguage(name, language);
}
hljs.registerAliases(["shell", "console", "zsh"], { languageName: "bash" });
hljs.registerAliases(["html", "svg"], { languageName: "xml" });
// TypeScript reads well enough with JavaScript's rules, for a fifth of the bytes.
hljs.registerAliases(["typescript", "ts", "tsx"], { languageName: "javascript" });

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

const marked = new Marked({
  gfm: true,
  renderer: {
    code({ text, lang }) {
      const language = (lang ?? "").trim().split(/\s+/)[0].toLowerCase();
      const known = language && hljs.getLanguage(language);
      const body = known ? hljs.highlight(text, { language, ignoreIllegals: true }).value : escapeHtml(text);
      const cls = known ? ` class="hljs language-${escapeHtml(language)}"` : "";
      const label = language ? ` data-lang="${escapeHtml(language)}"` : "";
      return `<pre${label}><code${cls}>${body}</code></pre>\n`;
    },
  },
});

// Links open in a new tab and tell the target nothing about this page.
DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A" && node.hasAttribute("href")) {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

const PURIFY = {
  // What a reply may not bring into the page: its own styles, forms and controls, ids and
  // names that could clash with the page's own elements.
  FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "option", "dialog"],
  FORBID_ATTR: ["style", "id", "name", "tabindex", "autofocus"],
  RETURN_DOM_FRAGMENT: true as const,
};

/** Sanitised HTML for Markdown `text`, as a fragment ready to append. */
export function markdownFragment(text: string): DocumentFragment {
  const html = (marked.parse(text, { async: false }) as string).trim();
  const fragment = DOMPurify.sanitize(html, PURIFY);
  for (const pre of fragment.querySelectorAll("pre")) {
    const code = pre.querySelector("code") ?? pre;
    const lang = pre.dataset.lang;
    pre.removeAttribute("data-lang");
    const block = h(
      "div",
      { class: "code-block" },
      h(
        "div",
        { class: "code-head" },
        h("span", { class: "code-lang" }, lang ?? "text"),
        copyButton("Copy code", () => code.textContent ?? "", "Copy"),
      ),
    );
    pre.replaceWith(block);
    block.append(pre);
  }
  for (const table of fragment.querySelectorAll("table")) {
    // A wide table scrolls inside the message, never the page.
    const wrap = h("div", { class: "table-wrap", tabindex: "0", role: "group", "aria-label": "Table" });
    table.replaceWith(wrap);
    wrap.append(table);
  }
  return fragment;
}

/** Draw Markdown `text` into `el`, replacing what it showed. */
export function renderMarkdown(el: HTMLElement, text: string): void {
  el.replaceChildren(markdownFragment(text));
}
