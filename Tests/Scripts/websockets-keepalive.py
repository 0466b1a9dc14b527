"""An independent WebSocket client (PyPI's websockets) against conn-peer.

Opens ws://HOST:PORT/ (HOST 127.0.0.1 unless given, [::1] for IPv6), waits for the pong of one explicit ping, lets the library's own
keepalive ping every 0.1 s for 0.6 s (it closes the connection if a pong is 1 s late), then
closes. Prints what it saw; exits 1 on any failure. Every step has a timeout.
"""
import sys

from websockets.sync.client import connect

port = sys.argv[1]
host = sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1"
with connect(f"ws://{host}:{port}/", open_timeout=3, close_timeout=2, proxy=None,
             ping_interval=0.1, ping_timeout=1, compression=None) as ws:
    if not ws.ping(b"conn-peer").wait(3):
        sys.exit("no pong within 3 s")
    print("pong")
    try:
        ws.recv(timeout=0.6)
        sys.exit("unexpected message")
    except TimeoutError:
        print("keepalive held")
    ws.close()
    print(f"closed {ws.close_code}")
