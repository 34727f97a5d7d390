"""Fixtures of the hostile-input harness: addresses where no Dask scheduler is."""

from __future__ import annotations

import socket
import threading

import pytest


@pytest.fixture(scope="session")
def addresses():
    """``{closed}``: a port nobody listens on; ``{http}``: a server that answers in HTTP."""
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    closed = probe.getsockname()[1]
    probe.close()  # the port is now closed: connecting is refused at once

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)

    def answer() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(1)
                try:
                    conn.recv(1024)
                    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
                except OSError:
                    pass

    threading.Thread(target=answer, daemon=True).start()
    yield {
        "closed": f"tcp://127.0.0.1:{closed}",
        "http": f"tcp://127.0.0.1:{server.getsockname()[1]}",
    }
    server.close()
