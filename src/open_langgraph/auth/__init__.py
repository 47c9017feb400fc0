"""Custom authentication and authorization with LangGraph Platform's `langgraph_sdk.Auth`.

`loading` imports the `Auth` object `auth.path` names; `authenticate` turns a request into a
user with its `@auth.authenticate` handler; `context` keeps that user for the request;
`authorize` runs the `@auth.on...` handler of an action and returns its filter; `filters`
checks filters and writes them into new resources' metadata; `users` is the user object and
the `langgraph_auth_*` keys runs carry. Without `auth` in the config, none of this runs.
"""
