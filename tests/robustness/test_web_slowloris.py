"""The web server under half-open connections and crowded queues (issue 29): a connection that does not send a whole
request in time (slowloris) is closed, so it turns no other client away for longer; one client holds only so many
connections, every loopback address counting as one client; and a request that needs no thinking (a game against
random, the person to move first, reading or undoing) is never refused while the queue of thinks is full.

The server is uvicorn as ``awale serve`` configures it (:func:`awale_apps.web.server.uvicorn_config`), on a socket
of this test, with a request deadline of one second; its workers are not warmed up (none starts for these tests but
the last's)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import uvicorn
from fastapi.testclient import TestClient

from awale_apps.web import create_app
from awale_apps.web.server import MAX_CONNECTIONS, client_key, uvicorn_config

REQUEST_SECONDS = 1.0
PARTIAL_REQUEST = b"GET /api/config HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


def quiet_app(**limits):
    """The app, its workers not warmed up (nothing here needs them before a game starts)."""
    app = create_app(max_think_seconds=1.0, **limits)
    app.state.server.thinkers.warm_up = lambda: None
    return app


@contextmanager
def serving(max_client_connections: int) -> Iterator[int]:
    """uvicorn serving the app on a free loopback port (yielded), as ``awale serve`` configures it."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    config = uvicorn_config(quiet_app(), "127.0.0.1", port, 1.0, REQUEST_SECONDS, max_client_connections)
    config.log_level = "critical"
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline
        time.sleep(0.05)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        listener.close()


def half_open(port: int, source: str = "127.0.0.1") -> socket.socket:
    """A connection that sends the start of a request's headers, and nothing more."""
    connection = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    connection.sendall(PARTIAL_REQUEST)
    return connection


def get(port: int, path: str = "/api/config") -> tuple[int, bytes]:
    """A whole GET request on a new connection: the status and the body."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def closed_by_server(connection: socket.socket, within: float) -> bool:
    """Whether the server closes ``connection`` within ``within`` seconds (it sends nothing more before)."""
    connection.settimeout(within)
    try:
        return connection.recv(65536) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_half_open_connections_are_closed_after_the_request_deadline_and_others_are_served():
    with serving(max_client_connections=MAX_CONNECTIONS * 2) as port:
        slow = [half_open(port) for _ in range(MAX_CONNECTIONS)]
        try:
            assert get(port)[0] == 503  # every place held: what the deadline ends
            started = time.monotonic()
            assert all(closed_by_server(connection, REQUEST_SECONDS + 10) for connection in slow)
            assert time.monotonic() - started < REQUEST_SECONDS + 10
            status, body = get(port)
            assert status == 200 and "games" in json.loads(body)
        finally:
            for connection in slow:
                connection.close()


def test_a_request_sent_byte_by_byte_is_cut_at_the_deadline_and_a_prompt_one_is_not():
    with serving(max_client_connections=8) as port:
        connection = socket.create_connection(("127.0.0.1", port), timeout=10)
        started = time.monotonic()
        request = b"GET /api/config HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-Pad: a\r\n" * 40 + b"\r\n"
        closed = False
        for byte in request:  # a byte every 0.1 s: the whole request would take 4 s
            try:
                connection.sendall(bytes([byte]))
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
            time.sleep(0.1)
        closed = closed or closed_by_server(connection, 5)
        assert closed and time.monotonic() - started < REQUEST_SECONDS + 5
        connection.close()
        assert get(port)[0] == 200


def test_one_client_holds_only_so_many_connections_whatever_its_loopback_address():
    with serving(max_client_connections=4) as port:
        slow = [half_open(port, f"127.0.0.{1 + k}") for k in range(4)]
        try:
            for source in ("127.0.0.1", "127.0.0.9"):
                extra = half_open(port, source)
                extra.settimeout(10)
                answer = extra.recv(65536)
                assert answer.startswith(b"HTTP/1.1 429 "), answer
                assert b"too many connections from your address: 4 are open" in answer
                extra.close()
        finally:
            for connection in slow:
                connection.close()


@pytest.mark.parametrize(
    ("host", "key"),
    [
        ("127.0.0.1", "loopback"),
        ("127.3.2.1", "loopback"),
        ("::1", "loopback"),
        ("::ffff:127.0.0.1", "loopback"),
        ("::ffff:10.1.2.3", "10.1.2.3"),
        ("10.1.2.3", "10.1.2.3"),
        ("2001:db8:1:2::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff::9", "2001:db8:1:2::/64"),
        ("testclient", "testclient"),
    ],
)
def test_clients_are_keyed_by_address_loopback_as_one_and_ipv6_by_network(host, key):
    assert client_key(host) == key


def test_requests_that_need_no_thinking_are_served_while_the_queue_is_full():
    app = quiet_app(max_queue=2, max_client_queue=1)
    with TestClient(app) as client:
        searching = client.post("/api/games", json={"opponent": "alphabeta:depth=1", "seed": 1})
        assert searching.status_code == 201, searching.text
        queued = app.state.server.queued
        queued.update({"198.51.100.1": 1, "198.51.100.2": 1})  # two thinks under way: the queue is full
        created = client.post("/api/games", json={"opponent": "random", "seat": 0, "seed": 2})
        assert created.status_code == 201, created.text
        game = created.json()["id"]
        moved = client.post(f"/api/games/{game}/moves", json={"move": created.json()["legal_moves"][0]})
        assert moved.status_code == 200 and len(moved.json()["moves"]) == 2, moved.text
        assert client.get(f"/api/games/{game}").status_code == 200
        assert client.post(f"/api/games/{game}/undo").status_code == 200
        first = client.post("/api/games", json={"opponent": "alphabeta:depth=1", "seat": 0, "seed": 3})
        assert first.status_code == 201, first.text  # the searching agent is built, not asked to think
        busy = client.post(
            f"/api/games/{searching.json()['id']}/moves", json={"move": searching.json()["legal_moves"][0]}
        )
        assert busy.status_code == 503 and "the server is busy" in busy.json()["error"], busy.text
        queued.clear()
