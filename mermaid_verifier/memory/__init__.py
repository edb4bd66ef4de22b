"""The evidence memory: entity-keyed evidence and remembered lookups (``evidence``), the LangGraph store it
lives in (``store``), and its upkeep — decay, revalidation, pruning (``upkeep``)."""
