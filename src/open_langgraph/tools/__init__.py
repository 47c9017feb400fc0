"""Tools agents share: offline-first web/document search, safe arithmetic and calendar sums.

```python
from open_langgraph.tools import calculate, search

search("how do runs on a thread queue?", max_results=3)  # BM25 over docs/, or Tavily
calculate("25 * 4 + 17")  # 117, parsed with `ast`, never `eval`
date_calculate("today - 21 days")  # "Thursday, 5 November 2026 (2026-11-05), 21 days before today"
```
"""

from __future__ import annotations

from open_langgraph.tools.calculator import CalculatorError, calculate
from open_langgraph.tools.dates import DateExpressionError, date_calculate
from open_langgraph.tools.search import SearchError, SearchResult, search

__all__ = [
    "CalculatorError",
    "DateExpressionError",
    "SearchError",
    "SearchResult",
    "calculate",
    "date_calculate",
    "search",
]
