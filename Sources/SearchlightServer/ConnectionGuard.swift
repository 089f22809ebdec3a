import Foundation
public import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1
public import SearchlightKit
import Synchronization

/// What one client's connection may cost the service: how many connections are served at once,
/// and how long a client may take to send a request or leave a connection idle (README,
/// *Security*).
public struct ConnectionLimits: Sendable, Hashable {
    /// Connections open at once. A connection past this closes the open connection that has waited
    /// longest for a request's head (a client still sending one, or idle between requests); when
    /// every open connection is inside a request, it is answered 503 (code 2018) at once, before
    /// its request is read, and closed.
    public var maximumConnections: Int
    /// How long a client has to send its first request's head, from the connection's start. Past
    /// it the connection is closed.
    public var headerTimeout: Duration
    /// How long a client has to send a whole request once its head is in.
    public var requestTimeout: Duration
    /// How long a connection may wait for its next request once its previous response is sent.
    public var idleTimeout: Duration

    /// The default: as many connections as the process's open-files limit allows, less the
    /// ``reservedFiles`` the index and the logs may need.
    public init(
        maximumConnections: Int = ConnectionLimits.allowedByOpenFiles(), headerTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(60), idleTimeout: Duration = .seconds(30)
    ) {
        self.maximumConnections = maximumConnections
        self.headerTimeout = headerTimeout
        self.requestTimeout = requestTimeout
        self.idleTimeout = idleTimeout
    }

    /// Descriptors kept for what is not a connection: the index's files (a few per table, per
    /// reader and shard), the watched folders, the logs.
    public static let reservedFiles = 256

    /// The connections the process's open-files limit (`ulimit -n`, as it stands) leaves room
    /// for: the limit less ``reservedFiles``, and at least 1.
    public static func allowedByOpenFiles() -> Int {
        var files = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &files) == 0 else { return 1024 }
        return max(1, Int(clamping: files.rlim_cur) - reservedFiles)
    }

    /// Raises the process's open-files limit to the most it may have (its hard limit), as servers
    /// that hold many connections do, and returns the connections it then leaves room for.
    @discardableResult
    public static func raiseOpenFilesLimit() -> Int {
        var files = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &files) == 0, files.rlim_cur < files.rlim_max {
            files.rlim_cur = files.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &files)
        }
        return allowedByOpenFiles()
    }
}

extension SearchlightError.Code {
    /// 2018: the service is at its connection limit (HTTP 503); try again shortly.
    public static let tooManyConnections = Self(rawValue: 2018)
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with the service's connection limits: Hummingbird's channel, with a handler in
    /// front of its request handling that counts connections and times requests.
    static func guarded(_ limits: ConnectionLimits) -> HTTPServerBuilder {
        let open = OpenConnections()
        return HTTPServerBuilder { responder in
            GuardedHTTP1Channel(
                base: HTTP1Channel(responder: responder), limits: limits, open: open)
        }
    }
}

/// The service's open connections, across its event loops: how many there are, and which of
/// them are waiting for a request's head (a client that has not finished sending one, or a
/// connection idle between requests), oldest first, so that a new connection past the limit can
/// take the place of the one that has waited longest. A client that opens connections and sends
/// nothing then only ever displaces its own kind: it cannot lock out a search, which is inside a
/// request a moment after it connects.
final class OpenConnections: Sendable {
    /// What becomes of a new connection.
    enum Admission {
        /// Within the limit.
        case admitted
        /// Past the limit, in place of this connection, which the caller closes.
        case replacing(any Channel)
        /// Past the limit, and every open connection is inside a request.
        case refused
    }

    private struct State {
        var count = 0
        /// The waiting connections by the number of their wait, which grows with time.
        var waiting: [UInt64: any Channel] = [:]
        /// The numbers of waits, in the order they began; those no longer in `waiting` are
        /// skipped, and dropped when they outnumber the waiting connections.
        var order = CircularBuffer<UInt64>()
        var nextWait: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Counts a new connection and says whether it is served, and in whose place.
    func open(limit: Int) -> Admission {
        state.withLock { state in
            state.count += 1
            guard state.count > limit else { return .admitted }
            while let oldest = state.order.popFirst() {
                if let channel = state.waiting.removeValue(forKey: oldest) { return .replacing(channel) }
            }
            return .refused
        }
    }

    /// The connection `channel` waits for a request's head from now on; the number it returns
    /// names this wait for ``stopWaiting(_:)``.
    func startWaiting(_ channel: any Channel) -> UInt64 {
        state.withLock { state in
            let wait = state.nextWait
            state.nextWait += 1
            state.waiting[wait] = channel
            state.order.append(wait)
            if state.order.count > 2 * state.waiting.count + 1024 {
                state.order = CircularBuffer(state.order.filter { state.waiting[$0] != nil })
            }
            return wait
        }
    }

    /// The wait `wait` is over: a request's head came in, or the connection closed.
    func stopWaiting(_ wait: UInt64) {
        _ = state.withLock { state in state.waiting.removeValue(forKey: wait) }
    }

    /// A counted connection has closed.
    func close() { state.withLock { state in state.count -= 1 } }
}

/// Hummingbird's HTTP/1 channel with a ``ConnectionGuardHandler`` between the HTTP decoder and
/// the conversion to Swift HTTP Types, where a request's HTTP version is still known.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let base: HTTP1Channel
    let limits: ConnectionLimits
    let open: OpenConnections

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let codec = try operations.handler(type: HTTP1ToHTTPServerCodec.self)
            try operations.addHandler(ConnectionGuardHandler(limits: limits, open: open), position: .before(codec))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Counts its connection against ``ConnectionLimits/maximumConnections``: past it, closes the
/// connection that has waited longest for a request's head in its place, or answers 503 when none
/// is waiting; closes a connection whose client is too slow to send a request (header and request
/// timeouts) or that stays idle after a response; and closes an HTTP/1.0 connection (or one that
/// asked for `Connection: close`) once its response is sent. A request being answered is never
/// timed.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let limits: ConnectionLimits
    private let open: OpenConnections
    private var counted = false
    private var refused = false
    /// While the connection waits for a request's head: the number of its wait.
    private var wait: UInt64?
    /// The current request's response has ended.
    private var responded = false
    private var keepAlive = true
    private var deadline: Scheduled<Void>?
    /// The request's body is still coming in (its end not read yet).
    private var readingBody = false
    /// The request's declared length, when it has one.
    private var declaredLength: Int?
    /// The body's bytes still to read before the connection closes, once a response that ends it
    /// has gone out; `nil` while no such response has.
    private var drainLeft: Int?

    /// How much of a request's body is still read, and dropped, after a response that ends the
    /// connection (a 413 answered from the declared length): a client that writes its whole body
    /// before reading (Python's http.client, urllib) then reads the response instead of a reset.
    /// A longer body is cut off.
    static let drainLimit = 64 * 1024 * 1024

    init(limits: ConnectionLimits, open: OpenConnections) {
        self.limits = limits
        self.open = open
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if refused { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            stopWaiting()
            responded = false
            keepAlive = head.isKeepAlive
            readingBody = true
            declaredLength = head.headers.first(name: "content-length").flatMap { Int($0) }
            arm(limits.requestTimeout, context: context)
        case .end:
            readingBody = false
            if drainLeft != nil { return context.close(promise: nil) }
            if responded {
                // Answered before its body was all in: from now on it waits for the next request.
                startWaiting(context: context)
            } else {
                deadline?.cancel()
                deadline = nil
            }
        case .body(let bytes):
            if let left = drainLeft {
                // Dropped here, so nothing downstream asks for more: ask for it.
                drainLeft = left - bytes.readableBytes
                if left - bytes.readableBytes < 0 { return context.close(promise: nil) }
                return context.read()
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            // A response that says `Connection: close` (a 413 whose body was never read) ends the
            // connection too.
            if head.headers[canonicalForm: "connection"].contains(where: { $0.lowercased() == "close" }) {
                keepAlive = false
            }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end where keepAlive:
            context.write(data, promise: promise)
            responded = true
            arm(limits.idleTimeout, context: context)
            if !readingBody { startWaiting(context: context) }
        case .end where readingBody && (declaredLength ?? 0) <= Self.drainLimit:
            // The request's body is not all in: drop the rest (within the request timeout), then close.
            context.writeAndFlush(data, promise: promise)
            drainLeft = Self.drainLimit
            context.read()
        case .end:
            // HTTP/1.0 without keep-alive, or `Connection: close`: the response ends the connection.
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.cascade(to: promise)
            context.writeAndFlush(data, promise: written)
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            written.futureResult.whenComplete { _ in loopBound.value.close(promise: nil) }
        }
    }

    private func start(context: ChannelHandlerContext) {
        guard !counted else { return }
        counted = true
        switch open.open(limit: limits.maximumConnections) {
        case .admitted:
            break
        case .replacing(let waiting):
            waiting.close(promise: nil)
        case .refused:
            return refuse(context: context)
        }
        arm(limits.headerTimeout, context: context)
        startWaiting(context: context)
    }

    private func startWaiting(context: ChannelHandlerContext) {
        stopWaiting()
        wait = open.startWaiting(context.channel)
    }

    private func stopWaiting() {
        if let wait { open.stopWaiting(wait) }
        wait = nil
    }

    private func finish() {
        stopWaiting()
        deadline?.cancel()
        deadline = nil
        if counted {
            counted = false
            open.close()
        }
    }

    /// Closes the connection unless `deadline` is cancelled or moved within `timeout`.
    private func arm(_ timeout: Duration, context: ChannelHandlerContext) {
        deadline?.cancel()
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: TimeAmount(timeout)) { loopBound.value.close(promise: nil) }
    }

    /// Answers 503 before reading anything, and closes the connection.
    private func refuse(context: ChannelHandlerContext) {
        refused = true
        let error = SearchlightError(.tooManyConnections, "The service is at its connection limit; try again shortly")
        let body = ByteBuffer(bytes: (try? ErrorMiddleware.encodedBody(for: error)) ?? Data())
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        headers.add(name: "Connection", value: "close")
        headers.add(name: "Retry-After", value: "1")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .serviceUnavailable, headers: headers))),
            promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in loopBound.value.close(promise: nil) }
    }
}
