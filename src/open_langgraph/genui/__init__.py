"""Generative UI: the config's `ui` components, bundled at start-up (`build.py`) and served
to the JS SDK's `LoadExternalComponent` (`services/generative_ui.py`,
`server/routes/genui.py`)."""

from open_langgraph.genui.build import Bundle, GenerativeUi, build_generative_ui

__all__ = ["Bundle", "GenerativeUi", "build_generative_ui"]
