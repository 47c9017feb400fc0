"""The bundled agents' tools and middleware, kept beside the agents and out of the server.

The server package (`open_langgraph`) never imports this: a user who copies an agent copies
these modules with it, and the core install serves graphs without them.

- `search`: offline BM25 over a folder of documents (this project's docs by default), or Tavily.
- `calculator`: exact arithmetic with units, parsed with `ast`, never `eval`.
- `clock`: the current date and time, and the weekday of any date.
- `live_data`: what an agent with no live source answers when asked for live data.
- `python_sandbox`: model-written Python run in WebAssembly (Pyodide under Node.js).
- `middleware`: LangChain v1 agent middleware, one concern per module.
- `turns`: reading a conversation by turns (what the person asked last, what the agent did since).
"""
