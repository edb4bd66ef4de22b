"""How every MCP server here registers a tool: FastMCP's ``server.tool()``, with the function's
docstring as the description a model reads, dedented (``inspect.cleandoc``) so it carries no source
indentation."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from mcp.server.fastmcp import FastMCP


def tool(server: FastMCP) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def register(function: Callable[..., Any]) -> Callable[..., Any]:
        return server.tool(description=inspect.cleandoc(function.__doc__ or ""))(function)

    return register
