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

/// Reads a secret from its file (an AMI secret, a broker's or a SIP account's password, the HTTP API's bearer
/// token), refusing a file others may read: each opens a phone system, a broker or the daemon itself.
public enum SecretFile {
  /// The secret (the file's first line, without its line end).
  ///
  /// - Parameter what: what the file holds, for the message about an empty one ("the AMI secret").
  /// - Throws: ``BridgeConnectError`` naming the file: missing, unreadable, empty, or with permissions beyond
  ///   its owner's (anything but 0600 or 0400).
  public static func read(_ path: String, holding what: String = "the secret") throws(BridgeConnectError) -> String {
    var info = stat()
    guard stat(path, &info) == 0 else {
      throw BridgeConnectError("secret file \(path): \(String(cString: strerror(errno)))")
    }
    let mode = info.st_mode & 0o777
    guard mode & 0o077 == 0 else {
      throw BridgeConnectError(
        "secret file \(path) may be read by others (mode \(String(mode, radix: 8))); run chmod 600 \(path)")
    }
    guard let data = FileManager.default.contents(atPath: path), data.count <= 4_096,
      let text = String(data: data, encoding: .utf8)
    else {
      throw BridgeConnectError("secret file \(path): cannot be read as UTF-8 text up to 4 KiB")
    }
    let secret = String(text.prefix { $0 != "\n" && $0 != "\r" })
    guard !secret.isEmpty else {
      throw BridgeConnectError("secret file \(path) is empty; put \(what) on its first line")
    }
    return secret
  }
}
