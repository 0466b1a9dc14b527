"""An independent WebSocket server (PyPI's websockets) for conn-soak to keep its heartbeat against.

Listens on 127.0.0.1 on a port the system picks and prints 'listening PORT'. The library answers
every ping; the server sends nothing else, and reads until each client closes. It stops by itself
after the seconds given as its one argument.
"""
import sys
import threading

from websockets.sync.server import serve


def handler(ws):
    try:
        for _ in ws:
            pass
    except Exception:
        pass


seconds = float(sys.argv[1])
with serve(handler, "127.0.0.1", 0, compression=None, ping_interval=None) as server:
    print(f"listening {server.socket.getsockname()[1]}", flush=True)
    threading.Timer(seconds, server.shutdown).start()
    server.serve_forever()
