"""A TCP forwarder for the partition test of cli/tests/fleet.rs: listens on HOST:PORT and
forwards every connection to 127.0.0.1:TARGET, so that a worker in a network namespace reaches
the test's PostgreSQL (which trusts loopback only) over a veth pair the test can cut.

    python3 forward.py HOST PORT TARGET
"""

import socket
import sys
import threading


def pipe(source, sink):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def main():
    host, port, target = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((host, port))
    server.listen(64)
    print("listening", flush=True)
    while True:
        client, _ = server.accept()
        upstream = socket.create_connection(("127.0.0.1", target))
        for a, b in ((client, upstream), (upstream, client)):
            threading.Thread(target=pipe, args=(a, b), daemon=True).start()


if __name__ == "__main__":
    main()
