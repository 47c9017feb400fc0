"""A scripted chat model for the web agent: replies in order, some computed from the page.

A browser agent's element refs (`e12`, `f2e16`) are only known once the page is seen, so a
script entry may be a function of the messages the model is given; it reads the snapshot in
the Agent's last message as a real model would. Structured replies (`with_structured_output`)
are tool calls named after the schema, which LangChain's default implementation parses.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import BaseModel

Reply = AIMessage | Callable[[list[BaseMessage]], AIMessage]
_ids = itertools.count()


def call(tool: str, /, **args: Any) -> AIMessage:
    """A reply calling one tool."""
    return AIMessage(content="", tool_calls=[{"name": tool, "args": args, "id": f"c{next(_ids)}"}])


def structured(schema: type[BaseModel], **fields: Any) -> AIMessage:
    """A structured reply of `schema`, as with_structured_output expects it."""
    return call(schema.__name__, **fields)


def page_of(messages: Sequence[BaseMessage]) -> str:
    """The snapshot part of the Agent's last message (the page comes after the stable prompt)."""
    return str(messages[-1].content).split("Current page", 1)[1]


def ref(messages: Sequence[BaseMessage], role: str, name: str | None = None) -> str:
    """The ref of the first element of `role` (and accessible `name`) on the current page."""
    quoted = f' "{re.escape(name)}"' if name is not None else ""
    match = re.search(rf"- {role}{quoted}[^\n]*\[ref=([a-z0-9]+)\]", page_of(messages), re.I)
    if match is None:
        raise AssertionError(f"no {role} {name!r} on the page:\n{page_of(messages)}")
    return match.group(1)


def planned(steps: list[str], *decisions: Any) -> list[Any]:
    """A script that asks no question, plans `steps` and then makes the Agent's `decisions`."""
    return [
        structured(_schema("Clarification"), need_clarification=False),
        structured(_schema("Plan"), steps=steps),
        *decisions,
    ]


def click(role: str, name: str | None = None) -> Reply:
    return lambda messages: call(
        "browser_click", target=ref(messages, role, name), element=name or role
    )


class ScriptedModel(BaseChatModel):
    """Plays `script` in order; running out fails the test instead of wrapping around."""

    script: list[Any]
    seen: list[list[BaseMessage]] = []

    @property
    def _llm_type(self) -> str:
        return "web-agent-script"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedModel:
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if len(self.seen) >= len(self.script):
            raise AssertionError(f"model called {len(self.seen) + 1} times; the script has fewer")
        entry = self.script[len(self.seen)]
        self.seen.append(list(messages))
        reply = entry(messages) if callable(entry) else entry
        return ChatResult(generations=[ChatGeneration(message=reply)])


class ShopperModel(BaseChatModel):
    """A stateless scripted shopper: each reply follows from what the call is shown (which
    prompt, the page, the last tool call), so it works across the several runs of a thread
    and across processes (a served graph). It buys `item` in `option` on the WebShop site."""

    item: str = "DM00000080"
    option: str = "32 fl oz"
    query: str = "sulfate free paraben free shampoo"
    calls: int = 0
    agent_prompts: list[list[BaseMessage]] = []
    """The messages of every Agent decision, in order."""

    @property
    def _llm_type(self) -> str:
        return "web-agent-shopper"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ShopperModel:
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.calls += 1
        return ChatResult(generations=[ChatGeneration(message=self.reply(messages))])

    def reply(self, messages: list[BaseMessage]) -> AIMessage:
        first = str(messages[0].content)
        if first.startswith("You prepare browser tasks"):
            if "Answers from the person" in first:
                return structured(_schema("Clarification"), need_clarification=False)
            return structured(
                _schema("Clarification"),
                need_clarification=True,
                question="Which shop should I use? Please give its address.",
                message_to_user="I need the shop's address.",
            )
        if first.startswith("Write a short plan"):
            steps = [
                "Open the shop and search for the shampoo",
                f"Open the item, choose {self.option}, note its name and price",
                "Buy it",
            ]
            if "rejected this plan" in first:
                steps.insert(0, "Check the shop's home page first")
            return structured(_schema("Plan"), steps=steps)
        if first.startswith("Answer the task"):
            data = first.split("Data found:", 1)[1]
            name = re.search(r"'item': '([^']+)'", data)
            price = re.search(r"'price': '([^']+)'", data)
            assert name and price, data
            return structured(
                _schema("Answer"), final_answer=f"Bought {name.group(1)} for {price.group(1)}."
            )
        return self.act(messages)

    def act(self, messages: list[BaseMessage]) -> AIMessage:
        self.agent_prompts.append(list(messages))
        page = page_of(messages)
        done = last_action(messages)
        if "no page open yet" in page:
            url = re.search(r"-> (http\S+)", str(messages[0].content))
            assert url, "the shop's address is not in the prompt"
            return call("browser_navigate", url=url.group(1))
        if done.startswith("opened "):
            return call(
                "browser_type", target=ref(messages, "textbox"), text=self.query, submit=True
            )
        if done.startswith("typed "):
            return call("browser_click", target=ref(messages, "link", self.item), element="item")
        if done == f'clicked link "{self.item}"':
            return call(
                "browser_click", target=ref(messages, "radio", self.option), element="option"
            )
        if done == f'clicked radio "{self.option}"':
            # The site marks the chosen option in the accessibility tree.
            assert re.search(rf'- radio "{re.escape(self.option)}" \[checked\]', page), page
            title = re.search(r'paragraph \[ref=\w+\]: ([^\n"]+)\n[^\n]*"Price: ', page)
            assert title, page
            return call("extract_data", name="item", value=title.group(1).strip())
        if done == "noted item":
            price = re.search(r'"Price: ([^"]+)"', page)
            assert price, page
            return call("extract_data", name="price", value=price.group(1))
        if done == "noted price":
            return call("browser_click", target=ref(messages, "link", "Buy Now"), element="Buy Now")
        if done == 'clicked link "Buy Now"':
            return call("finish", result="Bought the shampoo.")
        raise AssertionError(f"the script has no move after {done!r} on:\n{page}")


def last_action(messages: Sequence[BaseMessage]) -> str:
    """The newest line of the Agent's "Actions so far" list ("" before any action)."""
    block = str(messages[-1].content).split("Current page", 1)[0]
    lines = re.findall(r"^\d+\. (.*)$", block, re.M)
    return lines[-1] if lines else ""


def _schema(name: str) -> type[BaseModel]:
    from graphs.web_agent import replies

    return getattr(replies, name)
