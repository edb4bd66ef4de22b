"""Proof that the suite cannot touch the network (see the autouse guard in conftest.py)."""

import socket
import urllib.error
import urllib.request

import pytest

from .conftest import NetworkUsedInTest


def test_a_connect_to_a_public_address_is_refused():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock, pytest.raises(NetworkUsedInTest):
        sock.connect(("93.184.216.34", 80))


def test_an_http_request_is_refused_by_the_guard():
    """A numeric address needs no DNS, so the refusal can only come from the guard, not from being offline."""
    with pytest.raises(urllib.error.URLError) as caught:
        urllib.request.urlopen("http://93.184.216.34/", timeout=2)
    assert isinstance(caught.value.reason, NetworkUsedInTest)


def test_loopback_stays_usable():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as client:
            client.connect(server.getsockname())
