"""`weather`, as the chat's generative UI test chats with it: the reply names the city the
person wrote, and the node pushes UI messages (`push_ui_message`) around it:

- `weather`, linked to the reply (`message=`): the card the fixture project's bundle draws
  (tests/fixtures/projects/generative_ui/src/ui.tsx);
- `forecast_map`, not linked to a message and not in the bundle: the chat's fallback;
- `progress`, pushed then removed (`delete_ui_message`): gone from the page and the state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated
from uuid import uuid4

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.graph.ui import AnyUIMessage, delete_ui_message, push_ui_message, ui_message_reducer


class State(MessagesState):
    ui: Annotated[Sequence[AnyUIMessage], ui_message_reducer]


def forecast(state: State) -> dict:
    humans = [m for m in state["messages"] if isinstance(m, HumanMessage)]
    city = humans[-1].text.strip() if humans else "nowhere"
    progress = push_ui_message("progress", {"step": "looking up the forecast"})
    reply = AIMessage(f"Here is the weather in {city}.", id=str(uuid4()))
    push_ui_message("weather", {"city": city, "degrees": 21}, message=reply)
    push_ui_message("forecast_map", {"city": city, "zoom": 3})
    delete_ui_message(progress["id"])
    return {"messages": [reply]}


graph = StateGraph(State).add_node("forecast", forecast).add_edge(START, "forecast").compile()
