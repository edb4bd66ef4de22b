"""The MCP tool servers (one program per evidence source) and what they share; the client side is
``mermaid_verifier.tools`` (``toolbox``, ``sources``)."""
