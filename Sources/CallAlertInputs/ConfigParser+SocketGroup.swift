internal import Yams

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension ConfigParser {
  /// `socket.group`: a group name, or a numeric id, of this system; its members may use the control socket.
  mutating func socketGroup(_ node: Node) -> UInt32? {
    guard let text = nonEmptyText(node, "socket.group") else { return nil }
    if let number = UInt32(text) { return number }
    guard let entry = getgrnam(text) else {
      let shown = text.count > 40 ? String(text.prefix(40)) + "..." : text
      error(node, "socket.group", "no group named '\(shown)' on this system; name an existing group or its number")
      return nil
    }
    return entry.pointee.gr_gid
  }
}
