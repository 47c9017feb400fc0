"""Tools agents share: offline-first web/document search and safe arithmetic.

```python
from open_langgraph.tools import calculate, search

search("how do runs on a thread queue?", max_results=3)  # BM25 over docs/, or Tavily
calculate("25 * 4 + 17")  # 117, parsed with `ast`, never `eval`
```
"""

from __future__ import annotations

from open_langgraph.tools.calculator import CalculatorError, calculate
from open_langgraph.tools.search import SearchError, SearchResult, search

__all__ = ["CalculatorError", "SearchError", "SearchResult", "calculate", "search"]
