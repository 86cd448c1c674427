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

/// An IP address or a CIDR block (`192.0.2.10`, `192.0.2.0/24`, `2001:db8::/32`): a source a SIP account
/// trusts. Addresses are compared as bytes, so `::ffff:192.0.2.10` (an IPv4 peer on a dual-stack socket) is
/// the IPv4 address it carries.
public struct AddressRange: Equatable, Sendable, CustomStringConvertible {
  /// The network's bytes (4 or 16), the bits past the prefix zero.
  public let network: [UInt8]
  /// How many leading bits must match.
  public let prefixLength: Int

  /// Reads `address` or `address/prefix`; nil when it is neither (a host name, a prefix too long).
  public init?(parsing text: String) {
    let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
    guard let bytes = Self.bytes(of: String(parts[0])) else { return nil }
    var length = bytes.count * 8
    if parts.count == 2 {
      guard parts[1].allSatisfy({ ("0"..."9").contains($0) }), let read = Int(parts[1]), (0...length).contains(read)
      else { return nil }
      length = read
    }
    network = Self.masked(bytes, to: length)
    prefixLength = length
  }

  /// Whether the numeric address (as a socket reports it) is in the range.
  public func contains(_ address: String) -> Bool {
    guard let bytes = Self.bytes(of: address), bytes.count == network.count else { return false }
    return Self.masked(bytes, to: prefixLength) == network
  }

  /// `192.0.2.0/24`; a single address without its prefix.
  public var description: String {
    let text = Self.text(of: network)
    return prefixLength == network.count * 8 ? text : "\(text)/\(prefixLength)"
  }

  /// The address's bytes: 4 for IPv4 (and an IPv4-mapped IPv6 address), 16 for IPv6; nil for anything else.
  public static func bytes(of address: String) -> [UInt8]? {
    var text = Substring(address)
    if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
    if let zone = text.firstIndex(of: "%") { text = text[..<zone] }
    var v4 = in_addr()
    if inet_pton(AF_INET, String(text), &v4) == 1 {
      return withUnsafeBytes(of: &v4) { Array($0) }
    }
    var v6 = in6_addr()
    guard inet_pton(AF_INET6, String(text), &v6) == 1 else { return nil }
    let bytes = withUnsafeBytes(of: &v6) { Array($0) }
    if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff { return Array(bytes[12...]) }
    return bytes
  }

  private static func masked(_ bytes: [UInt8], to length: Int) -> [UInt8] {
    bytes.enumerated().map { index, byte in
      let bits = min(8, max(0, length - index * 8))
      return bits == 8 ? byte : byte & ~(UInt8(0xff) >> bits)
    }
  }

  private static func text(of bytes: [UInt8]) -> String {
    var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    let family = bytes.count == 4 ? AF_INET : AF_INET6
    let written = bytes.withUnsafeBytes { raw in
      inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count))
    }
    guard written != nil else { return "?" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
