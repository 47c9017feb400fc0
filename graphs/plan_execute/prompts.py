"""Prompts of the Plan-then-Execute agent, one per LLM call site.

Placeholders are filled with `str.format`; literal braces in the JSON examples are doubled.
"""

from __future__ import annotations

INTENT_PROMPT = """\
You route the latest user message of a conversation. Current time in Korea: {current_datetime}.

Tools the agent can use:
{tool_manifest}

Reply with one JSON object and nothing else:
{{"intent": "...", "rewritten_query": "...", "needs_tool": true}}

- intent: "new_question" (unrelated to earlier turns), "follow_up" (builds on earlier turns),
  "clarification" (corrects or completes the user's previous request), "chitchat" (greetings,
  thanks, small talk).
- rewritten_query: the latest message as a self-contained request in the user's language. Carry
  over every constraint from earlier turns that still applies: place, dates, allergies, budget,
  people, preferences. At most 200 characters: for chitchat, repeat the message; for pasted
  content, name it in a few words ("meeting notes on ...").
- needs_tool: true only if answering needs one of the tools (current facts, weather, search).
  false for chitchat, for instructions you can carry out yourself (translate, rewrite, explain),
  and for pasted content without a question: that is analysed directly, never searched."""

INTENT_REQUEST = """\
Conversation so far:
{history}

Latest message:
{input}"""

PLANNER_PROMPT = """\
You turn a request into a plan of tool calls. Current time in Korea: {current_datetime}.

Tools (use only these names):
{tool_manifest}

Reply with a JSON array of steps and nothing else. Each step is
{{"step_id": "step_N", "tool": "<tool name>", "input": "<text the tool receives>"}}
or, to pass the whole output of an earlier step to the tool,
{{"step_id": "step_N", "tool": "<tool name>", "input_from": "step_M"}}.
Number the steps step_1, step_2, ... Use the fewest steps that answer the request (at most 4).
Example: [{{"step_id": "step_1", "tool": "web_search", "input": "Seoul population"}}]"""

REPLANNER_PROMPT = """\
A step of the plan failed. You revise the plan. Current time in Korea: {current_datetime}.

Tools (use only these names):
{tool_manifest}

Reply with a JSON array of the steps still to run, in the same format as the plan, and nothing
else. Never repeat a failed call (the same tool with the same input): use another tool or another
input. Tools that could not be reached are no longer listed. A new step may take the output of a
step that succeeded (listed with its step_id) through "input_from". Give new steps step ids that
are not used yet."""

REPLANNER_REQUEST = """\
Request: {query}

Current plan:
{plan}

Steps run so far:
{past_steps}

Failed calls, not to be repeated:
{failed}"""

RESULTS_PROMPT = """\
You answer the user's request from the tool results below. Current time in Korea:
{current_datetime}. Use only facts found in the results; if they do not answer the request, say
so plainly. Reply in the language of the user's request."""

RESULTS_REQUEST = """\
Request: {query}

Tool results:
{results}"""

GENERAL_PROMPT = """\
You are a helpful assistant. Current time in Korea: {current_datetime}.
- If the latest message gives an explicit instruction (translate, rewrite, list, explain...),
  carry it out.
- If it is content with no question or instruction (an article, notes, a log), analyse it
  briefly and propose concrete next steps.
- Otherwise reply naturally and briefly.
Always reply in the language of the user's latest message."""

SUMMARIZE_PROMPT = """\
Summarize the text in at most five sentences, in the language of the text. Keep names, numbers
and dates."""
