import Foundation
import SearchlightTesting
import Testing

/// A Python script that talks to the service at `port` over raw sockets, with `body` after the
/// helpers: `connect()`, `read_all(socket)` (until the service closes, or 20 s) and `elapsed()`.
func socketScript(port: Int, _ body: String) -> String {
    """
    import socket, time, json
    started = time.time()
    def elapsed(): return time.time() - started
    def connect():
        s = socket.create_connection(("127.0.0.1", \(port)))
        s.settimeout(20)
        return s
    def read_all(s):
        data = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk: return data, "closed"
                data += chunk
        except socket.timeout:
            return data, "open"
        except ConnectionResetError:
            return data, "closed"
    \(body)
    """
}

/// What a slow or hostile client can make the service do (docs/reliability.md, *Security*): raw sockets against the real
/// binary on loopback.
@Suite("serve: slow clients and connection limits (raw sockets)", .temporaryFolder)
struct SlowClientTests {
    @Test("a declared length over the limit gets 413 at once, before the body, with or without a token")
    func declaredLength() throws {
        let workspace = try indexedWorkspace()
        let server = try RunningServer(index: workspace.index, tokens: try writeTokens(workspace))
        defer { _ = server.stop() }
        let script = socketScript(
            port: server.port,
            """
            for auth in [b"Authorization: Bearer \(shopToken)\\r\\n", b""]:
                s = connect()
                s.sendall(b"POST /v1/items HTTP/1.1\\r\\nHost: x\\r\\n" + auth + b"Content-Length: 999999999999\\r\\n\\r\\n")
                data, state = read_all(s)
                print(data.split(b" ")[1].decode(), json.loads(data.split(b"\\r\\n\\r\\n", 1)[1])["error"]["code"], state)
            print(elapsed() < 5)
            """)
        let python = try runPython(script)
        #expect(python.output == "413 2013 closed\n413 2013 closed\nTrue")
    }

    @Test("an HTTP/1.0 request's connection closes with its response")
    func http10() throws {
        let workspace = try indexedWorkspace()
        let server = try RunningServer(index: workspace.index)
        defer { _ = server.stop() }
        let script = socketScript(
            port: server.port,
            """
            s = connect()
            s.sendall(b"GET /v1/search?q=links HTTP/1.0\\r\\n\\r\\n")
            data, state = read_all(s)
            print(data.split(b" ")[1].decode(), state, elapsed() < 5)
            """)
        #expect(try runPython(script).output == "200 closed True")
    }

    @Test("a request head sent too slowly, and an idle connection, are closed; searches go on")
    func timeouts() async throws {
        let workspace = try indexedWorkspace()
        let server = try RunningServer(
            index: workspace.index, extra: ["--header-timeout", "2s", "--idle-timeout", "2s"])
        defer { _ = server.stop() }
        let script = socketScript(
            port: server.port,
            """
            slow = connect()
            slow.sendall(b"GET /health HTTP/1.1\\r\\nHo")
            state = "open"
            for _ in range(20):
                time.sleep(0.5)
                try:
                    slow.sendall(b"x")
                except (BrokenPipeError, ConnectionResetError):
                    state = "closed"
                    break
            print("slow header", state, round(elapsed()) <= 5)
            idle = connect()
            idle.sendall(b"GET /health HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
            began = time.time()
            data, state = read_all(idle)
            print("idle", data.split(b" ")[1].decode(), state, 1 <= time.time() - began <= 6)
            """)
        #expect(try runPython(script).output == "slow header closed True\nidle 200 closed True")
        #expect(try await http("GET", server.baseURL + "/v1/search?q=links").status == 200)
    }

    @Test("past --max-connections a connection gets 503 (code 2018) at once; a freed one serves again")
    func connectionLimit() throws {
        let workspace = try indexedWorkspace()
        let server = try RunningServer(index: workspace.index, extra: ["--max-connections", "4"])
        defer { _ = server.stop() }
        let script = socketScript(
            port: server.port,
            """
            held = [connect() for _ in range(4)]
            time.sleep(0.3)
            extra = connect()
            data, state = read_all(extra)
            print(data.split(b" ")[1].decode(), json.loads(data.split(b"\\r\\n\\r\\n", 1)[1])["error"]["code"], state)
            held.pop().close()
            time.sleep(0.3)
            s = connect()
            s.sendall(b"GET /v1/search?q=links HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n")
            data, state = read_all(s)
            print(data.split(b" ")[1].decode(), state)
            """)
        #expect(try runPython(script).output == "503 2018 closed\n200 closed")
    }
}
