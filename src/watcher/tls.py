"""The one TLS context every HTTP client of the process shares (arXiv's and the Bot API's).

httpx builds a context of its own for each client, loading certifi's roots into it each time:
about 2.9 MB for the first and 0.8 MB for each after (bench/README.md, issue 34). The service
has three clients (ours for arXiv, PTB's for sending and for getUpdates), so they take this one.
It is what httpx would build itself (`httpx.create_ssl_context()`: certifi's roots, or
SSL_CERT_FILE / SSL_CERT_DIR when set), built at the first call and kept.
"""

from __future__ import annotations

import ssl
from functools import cache

import httpx


@cache
def shared_ssl_context() -> ssl.SSLContext:
    """The process's TLS context for verified HTTPS, as httpx builds it by default."""
    return httpx.create_ssl_context()
