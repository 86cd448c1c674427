import CallAlertText

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// One device's pairing, as a pure state machine: the phone asks (`kdeconnect.pair` with `pair: true`), the
/// user accepts here (`callalert kdeconnect pair <device>`) within ``timeout``, and the phone's certificate is
/// then pinned. CallAlert never asks a phone itself: pairing starts where the user holds the phone.
///
/// The actions say what the edge must do; the state machine sends nothing and pins nothing itself.
public struct KDEConnectPairing: Equatable, Sendable {
  /// Where the pairing is.
  public enum State: Equatable, Sendable {
    /// Not paired; the phone's packets other than pairing are refused.
    case notPaired
    /// The phone asked to pair at `since`; `timestamp` is the request's (protocol 8), for the verification key.
    case requestedByPeer(timestamp: Int64?, since: Date)
    /// Paired: the phone's certificate is pinned.
    case paired
  }

  /// What the edge must do.
  public enum Action: Equatable, Sendable {
    /// Send a `kdeconnect.pair` packet: `true` accepts, `false` refuses or cancels.
    case send(pair: Bool)
    /// Pin the link's certificate: the phone is paired.
    case pin
    /// Forget the pinned certificate: the phone unpaired.
    case unpin
    /// Show the pending request (status, an event).
    case showRequest
    /// The pairing ended without trust, and why.
    case failed(String)
  }

  /// How long a request waits for the user (KDE Connect's own limit: the phone gives up then too).
  public static let timeout: TimeInterval = 30
  /// How far the request's timestamp may be from our clock (protocol 8).
  public static let allowedClockSkew: TimeInterval = 1_800

  /// The state.
  public private(set) var state: State

  /// A device's pairing: paired when its certificate is pinned.
  public init(paired: Bool) {
    state = paired ? .paired : .notPaired
  }

  /// Whether the device is paired.
  public var isPaired: Bool { state == .paired }

  /// Whether a request waits for the user.
  public var isRequested: Bool {
    if case .requestedByPeer = state { return true }
    return false
  }

  /// Reads a `kdeconnect.pair` packet: whether it asks to pair (or unpairs), and its timestamp.
  ///
  /// - Throws: ``InputError`` at the packet's place when `pair` is missing or not a boolean.
  public static func read(_ packet: KDEConnectPacket) throws(InputError) -> (pair: Bool, timestamp: Int64?) {
    guard let pair = packet["pair"]?.bool else {
      throw packet.error("pair", "missing or not a boolean; a pairing packet says true or false")
    }
    var timestamp: Int64?
    switch packet["timestamp"] {
    case nil, .null: timestamp = nil
    case .integer(let seconds): timestamp = seconds
    case let other?: throw packet.error("timestamp", "\(other.kindDescription) is not a time in seconds")
    }
    return (pair, timestamp)
  }

  /// The phone sent a pairing packet.
  public mutating func received(pair: Bool, timestamp: Int64?, protocolVersion: Int, now: Date) -> [Action] {
    guard pair else {
      switch state {
      case .notPaired: return []
      case .requestedByPeer:
        state = .notPaired
        return [.failed("the phone cancelled its request")]
      case .paired:
        state = .notPaired
        return [.unpin]
      }
    }
    var actions: [Action] = []
    switch state {
    case .requestedByPeer: return []  // asked again before the first one timed out
    case .paired:
      // The phone forgot us (its user unpaired there) and asks anew: the old trust goes, the request waits.
      actions.append(.unpin)
    case .notPaired: break
    }
    if protocolVersion >= 8 {
      guard let timestamp else {
        state = .notPaired
        return actions + [.send(pair: false), .failed("a protocol 8 request without its timestamp")]
      }
      guard abs(Double(timestamp) - now.timeIntervalSince1970) <= Self.allowedClockSkew else {
        state = .notPaired
        return actions + [.send(pair: false), .failed("the phone's clock and this host's differ by over 30 minutes")]
      }
    }
    state = .requestedByPeer(timestamp: timestamp, since: now)
    return actions + [.showRequest]
  }

  /// The user accepted here.
  ///
  /// - Returns: The actions, or nil when no request waits (nothing is sent: a phone is never asked by us).
  public mutating func accept() -> [Action]? {
    guard isRequested else { return nil }
    state = .paired
    return [.send(pair: true), .pin]
  }

  /// Time passed: a request older than ``timeout`` is refused.
  public mutating func tick(now: Date) -> [Action] {
    guard case .requestedByPeer(_, let since) = state, now.timeIntervalSince(since) >= Self.timeout else { return [] }
    state = .notPaired
    return [.send(pair: false), .failed("nobody accepted within \(Int(Self.timeout)) s")]
  }

  /// The link to the phone went away: a waiting request goes with it (the phone's own request dies too).
  public mutating func linkLost() {
    if isRequested { state = .notPaired }
  }
}
