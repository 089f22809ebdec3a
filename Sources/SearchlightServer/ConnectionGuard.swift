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
    /// Connections served at once. A connection past this is answered 503 (code 2018) at once,
    /// before its request is read, and closed.
    public var maximumConnections: Int
    /// How long a client has to send its first request's head, from the connection's start. Past
    /// it the connection is closed.
    public var headerTimeout: Duration
    /// How long a client has to send a whole request once its head is in.
    public var requestTimeout: Duration
    /// How long a connection may wait for its next request once its previous response is sent.
    public var idleTimeout: Duration

    public init(
        maximumConnections: Int = 1024, headerTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(60), idleTimeout: Duration = .seconds(30)
    ) {
        self.maximumConnections = maximumConnections
        self.headerTimeout = headerTimeout
        self.requestTimeout = requestTimeout
        self.idleTimeout = idleTimeout
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

/// How many connections are open, across the service's event loops.
final class OpenConnections: Sendable {
    private let count = Atomic<Int>(0)

    /// Counts a new connection; false when it is one past the limit.
    func open(limit: Int) -> Bool { count.wrappingAdd(1, ordering: .relaxed).newValue <= limit }
    func close() { count.wrappingSubtract(1, ordering: .relaxed) }
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

/// Counts its connection against ``ConnectionLimits/maximumConnections`` and answers 503 past it;
/// closes a connection whose client is too slow to send a request (header and request timeouts)
/// or that stays idle after a response; and closes an HTTP/1.0 connection (or one that asked for
/// `Connection: close`) once its response is sent. A request being answered is never timed.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let limits: ConnectionLimits
    private let open: OpenConnections
    private var counted = false
    private var refused = false
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
            keepAlive = head.isKeepAlive
            readingBody = true
            declaredLength = head.headers.first(name: "content-length").flatMap { Int($0) }
            arm(limits.requestTimeout, context: context)
        case .end:
            readingBody = false
            deadline?.cancel()
            deadline = nil
            if drainLeft != nil { return context.close(promise: nil) }
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
            arm(limits.idleTimeout, context: context)
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
        if open.open(limit: limits.maximumConnections) {
            arm(limits.headerTimeout, context: context)
        } else {
            refuse(context: context)
        }
    }

    private func finish() {
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
