"""A real Bolt server for the neo4j graph backend's tests: ArcadeDB (the `arcadedb-embedded`
wheel, which ships its own JVM) with its Bolt plugin, on 127.0.0.1, in a child process so the JVM
never lives in the test process.

Run as `python -m tests.stores.bolt_server ROOT PORT PASSWORD`: prints `ready` once the server
listens and serves until its stdin closes. The database the tests use is `DATABASE`.
"""

from __future__ import annotations

import sys

DATABASE = "planrag"


def main(root: str, port: int, password: str) -> None:
    from arcadedb_embedded.jvm import start_jvm
    from arcadedb_embedded.server import ArcadeDBServer

    start_jvm(heap_size="512m", common_pool_parallelism=1)
    server = ArcadeDBServer(
        root,
        password,
        config={
            "host": "127.0.0.1",
            "http_port": 0,
            "server_plugins": "Bolt:com.arcadedb.bolt.BoltProtocolPlugin",
            "bolt_port": port,
        },
    )
    server.start()
    server.create_database(DATABASE)
    print("ready", flush=True)
    try:
        sys.stdin.read()  # the parent closes our stdin to stop us
    finally:
        server.stop()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
