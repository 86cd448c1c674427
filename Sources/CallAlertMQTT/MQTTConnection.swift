import CMosquitto
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// One connection to an MQTT broker through libmosquitto, whose own network thread (`mosquitto_loop_start`)
/// owns the socket: it sleeps in `select` until the broker sends something or the keepalive is due (idle
/// costs nothing else), reconnects on its own with exponential backoff, and hands what happens to
/// ``events`` as ``MQTTConnectionEvent``s. Publishing and subscribing are thread-safe calls into the library.
///
/// The session is persistent (clean session off) under a fixed client id: QoS 1 messages sent while this host
/// was away are delivered when it returns, which is why calls are deduplicated (``MQTTDeduplicator``).
public final class MQTTConnection: Sendable {
  /// The library's client, behind a lock: every call into it holds the lock, and ``close()`` frees it and
  /// leaves nil, so that no call can reach a client that was freed (calls after the close fail).
  private let client: Mutex<OpaquePointer?>
  private let sink: Unmanaged<Sink>
  private let settings: MQTTSettingsView

  /// What the library reports, in order: connections, losses, messages. At most
  /// ``MQTTConnection/queuedMessages`` messages wait here: past that, libmosquitto's thread waits until one
  /// is taken, so the socket is not read and the broker holds the rest (under its own `max_queued_messages`)
  /// instead of this process dropping them. A message is never dropped here: a QoS 1 message libmosquitto
  /// acknowledged to the broker and then lost would vanish without a trace.
  public let events: MQTTConnectionEvents

  /// How many received messages may wait for their reader.
  public static let queuedMessages = 4_096

  /// How many received messages wait for their reader now (at most ``queuedMessages``).
  public var waitingMessages: Int { sink.takeUnretainedValue().waiting.load(ordering: .relaxed) }

  /// The part of the config the connection needs (the password already read from its file).
  public struct MQTTSettingsView: Sendable {
    /// The broker's host.
    public var host: String
    /// The broker's port.
    public var port: Int
    /// Whether to use TLS.
    public var tls: Bool
    /// The CA file for TLS; nil: the system's.
    public var caFile: String?
    /// The client id.
    public var clientID: String
    /// The user name.
    public var username: String?
    /// The password.
    public var password: String?
    /// The keepalive in seconds.
    public var keepaliveSeconds: Int
    /// The Last Will: topic and payload, published retained at QoS 1 by the broker when the host vanishes.
    public var will: (topic: String, payload: String)?

    /// Creates settings.
    public init(
      host: String, port: Int, tls: Bool = false, caFile: String? = nil, clientID: String, username: String? = nil,
      password: String? = nil, keepaliveSeconds: Int = 30, will: (topic: String, payload: String)? = nil
    ) {
      self.host = host
      self.port = port
      self.tls = tls
      self.caFile = caFile
      self.clientID = clientID
      self.username = username
      self.password = password
      self.keepaliveSeconds = keepaliveSeconds
      self.will = will
    }
  }

  /// Receives libmosquitto's callbacks on its thread and forwards them; a message waits for room.
  final class Sink: Sendable {
    let continuation: AsyncStream<MQTTConnectionEvent>.Continuation
    /// Signalled when the reader takes a message (``MQTTConnectionEvents``) or the connection closes. A
    /// condition, not a semaphore: libdispatch traps when a semaphore below its starting value is freed,
    /// which a connection closed with messages taken is.
    let room = RoomCondition()
    /// Set when the connection closes: a message waiting for room gives up, so the thread can stop.
    let closing = Atomic(false)
    /// Messages queued and not yet taken.
    let waiting = Atomic(0)

    init(_ continuation: AsyncStream<MQTTConnectionEvent>.Continuation) { self.continuation = continuation }

    /// Waits (on libmosquitto's thread) until a message may be queued, and counts it; false when the
    /// connection closes first.
    func waitForRoom() -> Bool {
      room.lock()
      defer { room.unlock() }
      while waiting.load(ordering: .relaxed) >= MQTTConnection.queuedMessages {
        if closing.load(ordering: .acquiring) { return false }
        room.wait(seconds: 0.1)  // the closing flag is looked at again
      }
      waiting.add(1, ordering: .relaxed)
      return true
    }

    /// The reader took a message: its place goes back to libmosquitto's thread.
    func taken() {
      room.lock()
      waiting.subtract(1, ordering: .relaxed)
      room.signal()
      room.unlock()
    }
  }

  private static let initialised: Bool = {
    mosquitto_lib_init()
    return true
  }()

  /// Sets the connection up (nothing is sent until ``start()``).
  ///
  /// - Throws: ``MQTTError`` when libmosquitto refuses a setting (a CA file it cannot load, no memory).
  public init(_ settings: MQTTSettingsView) throws(MQTTError) {
    _ = Self.initialised
    self.settings = settings
    // Unbounded as a buffer, bounded by the sink's room: messages wait for it, the few connection events not.
    let (stream, continuation) = AsyncStream.makeStream(of: MQTTConnectionEvent.self)
    let sink = Unmanaged.passRetained(Sink(continuation))
    events = MQTTConnectionEvents(stream: stream, sink: sink.takeUnretainedValue())
    guard let handle = mosquitto_new(settings.clientID, false, sink.toOpaque()) else {
      sink.release()
      throw MQTTError("libmosquitto could not create a client: \(String(cString: strerror(errno)))")
    }
    self.sink = sink
    do {
      try Self.check(mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311), "protocol version")
      // Fast after a blip, then doubling to a minute: libmosquitto's thread waits between its attempts.
      try Self.check(mosquitto_reconnect_delay_set(handle, 1, 60, true), "reconnect delay")
      if let username = settings.username {
        try Self.check(mosquitto_username_pw_set(handle, username, settings.password), "user and password")
      }
      if settings.tls {
        try Self.check(
          mosquitto_tls_set(handle, settings.caFile, settings.caFile == nil ? "/etc/ssl/certs" : nil, nil, nil, nil),
          "CA file \(settings.caFile ?? "/etc/ssl/certs")")
      }
      if let will = settings.will {
        let bytes = Array(will.payload.utf8)
        try Self.check(mosquitto_will_set(handle, will.topic, Int32(bytes.count), bytes, 1, true), "Last Will")
      }
    } catch {
      mosquitto_destroy(handle)
      sink.release()
      throw error
    }
    mosquitto_connect_callback_set(handle) { _, context, code in
      guard let context else { return }
      let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
      if code == 0 {
        sink.continuation.yield(.connected)
      } else {
        sink.continuation.yield(.refused(String(cString: mosquitto_connack_string(code))))
      }
    }
    mosquitto_disconnect_callback_set(handle) { _, context, code in
      guard let context else { return }
      let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
      let reason = code == 0 ? "disconnected" : String(cString: mosquitto_strerror(code))
      sink.continuation.yield(.disconnected(reason.hasSuffix(".") ? String(reason.dropLast()) : reason))
    }
    mosquitto_message_callback_set(handle) { _, context, message in
      guard let context, let message, let topic = message.pointee.topic else { return }
      let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
      guard sink.waitForRoom() else { return }
      let count = Int(message.pointee.payloadlen)
      let payload: [UInt8] =
        count > 0 && message.pointee.payload != nil
        ? Array(UnsafeRawBufferPointer(start: message.pointee.payload, count: count)) : []
      sink.continuation.yield(
        .message(MQTTMessage(topic: String(cString: topic), payload: payload, retained: message.pointee.retain)))
    }
    client = Mutex(handle)  // last: a start that failed before this point frees what it made itself
  }

  deinit { close() }

  /// Connects, then starts libmosquitto's thread, which keeps the connection from then on (reconnecting on
  /// its own with backoff after a loss).
  ///
  /// - Throws: ``MQTTError`` when the first connection cannot even be begun (the broker refuses TCP, its name
  ///   does not resolve) or the thread cannot start. libmosquitto's thread does not retry a first connection
  ///   that failed like this, so the caller tries again after its own backoff.
  public func start() throws(MQTTError) {
    let settings = settings
    try call("connect to \(settings.host):\(settings.port)") { handle in
      mosquitto_connect_async(handle, settings.host, Int32(settings.port), Int32(settings.keepaliveSeconds))
    }
    try call("network thread") { handle in mosquitto_loop_start(handle) }
  }

  /// Subscribes to a topic filter.
  public func subscribe(_ filter: String, qos: Int32 = 1) throws(MQTTError) {
    try call("subscribe \(filter)") { handle in mosquitto_subscribe(handle, nil, filter, qos) }
  }

  /// Publishes `payload` (empty: delete a retained message) at `qos`, retained or not.
  public func publish(_ topic: String, _ payload: [UInt8], qos: Int32 = 1, retain: Bool) throws(MQTTError) {
    try call("publish \(topic)") { handle in
      mosquitto_publish(handle, nil, topic, Int32(payload.count), payload, qos, retain)
    }
  }

  /// Publishes text.
  public func publish(_ topic: String, _ text: String, qos: Int32 = 1, retain: Bool) throws(MQTTError) {
    try publish(topic, Array(text.utf8), qos: qos, retain: retain)
  }

  /// Disconnects cleanly (no Last Will), stops the thread, and frees the client; later calls fail.
  public func close() {
    // The client is taken out under the lock, so a call that comes later finds none; the thread is stopped
    // outside it (its callbacks never take the lock, but a message may wait for room until `closing`).
    guard let handle = client.withLock({ client in client.take() }) else { return }
    let waiting = sink.takeUnretainedValue()
    waiting.closing.store(true, ordering: .releasing)
    waiting.room.lock()
    waiting.room.broadcast()  // a message waiting for room gives up now
    waiting.room.unlock()
    mosquitto_disconnect(handle)
    mosquitto_loop_stop(handle, false)
    mosquitto_destroy(handle)
    sink.takeUnretainedValue().continuation.finish()
    sink.release()
  }

  /// Calls the library on the client under the lock; fails once the connection is closed.
  private func call(_ what: String, _ body: @Sendable (OpaquePointer) -> Int32) throws(MQTTError) {
    let code = client.withLock { client in client.map(body) }
    guard let code else { throw MQTTError("\(what): the connection is closed") }
    try Self.check(code, what)
  }

  private static func check(_ code: Int32, _ what: String) throws(MQTTError) {
    guard code == MOSQ_ERR_SUCCESS.rawValue else { throw MQTTError("\(what): \(Self.describe(code))") }
  }

  private static func describe(_ code: Int32) -> String {
    if code == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(errno)) }
    let reason = String(cString: mosquitto_strerror(code))
    return reason.hasSuffix(".") ? String(reason.dropLast()) : reason
  }
}

/// What the connection reports.
public enum MQTTConnectionEvent: Sendable, Equatable {
  /// Connected (and after each reconnection): subscribe and publish the retained state again.
  case connected
  /// The broker refused the connection (bad credentials, client id), with its reason.
  case refused(String)
  /// The connection was lost or could not be made; libmosquitto tries again after its backoff.
  case disconnected(String)
  /// A message on a subscribed topic.
  case message(MQTTMessage)
}

/// A message as received.
public struct MQTTMessage: Sendable, Equatable {
  /// Its topic.
  public var topic: String
  /// Its payload (empty: a retained message was deleted).
  public var payload: [UInt8]
  /// Whether the broker sent it from its retained store (on subscribing) rather than as it was published.
  public var retained: Bool

  /// Creates a message.
  public init(topic: String, payload: [UInt8], retained: Bool) {
    self.topic = topic
    self.payload = payload
    self.retained = retained
  }
}

/// A failure of the MQTT client, with what it was doing.
public struct MQTTError: Error, CustomStringConvertible, Sendable {
  /// What failed.
  public let description: String

  /// Creates an error.
  public init(_ description: String) { self.description = description }
}

/// The connection's events, in order; taking a message gives its place back to libmosquitto's thread.
public struct MQTTConnectionEvents: AsyncSequence, Sendable {
  /// A connection, a loss, a message.
  public typealias Element = MQTTConnectionEvent
  let stream: AsyncStream<MQTTConnectionEvent>
  let sink: MQTTConnection.Sink

  /// An iterator; the connection has one reader.
  public func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator(), sink: sink) }

  /// Reads the events one at a time.
  public struct Iterator: AsyncIteratorProtocol {
    var base: AsyncStream<MQTTConnectionEvent>.Iterator
    let sink: MQTTConnection.Sink

    /// The next event; nil once the connection closed.
    public mutating func next() async -> MQTTConnectionEvent? {
      let event = await base.next()
      if case .message = event { sink.taken() }
      return event
    }
  }
}
