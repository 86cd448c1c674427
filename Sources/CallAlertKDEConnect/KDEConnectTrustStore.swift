import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#endif

/// The paired phones, pinned: `trusted.json` in the state folder (0600), read at start and written on every
/// pairing and unpairing. Read from any thread (the TLS handshake asks it on the event loop).
public final class KDEConnectTrustStore: Sendable {
  /// The file.
  public let path: String
  private let devices: Mutex<[KDEConnectTrustedDevice]>

  /// Why the store could not be read or written.
  public struct Failure: Error, CustomStringConvertible, Sendable {
    /// What went wrong, with the file.
    public var description: String
  }

  /// The store in `path`; an absent file is an empty store.
  public init(path: String) throws(Failure) {
    self.path = path
    guard FileManager.default.fileExists(atPath: path) else {
      devices = Mutex([])
      return
    }
    do {
      let data = try Data(contentsOf: URL(fileURLWithPath: path))
      devices = Mutex(try JSONDecoder().decode([KDEConnectTrustedDevice].self, from: data))
    } catch {
      throw Failure(
        description: "cannot read the paired phones in \(path): \(error); fix or remove it (phones then pair again)")
    }
  }

  /// Every paired phone.
  public var all: [KDEConnectTrustedDevice] { devices.withLock { $0 } }

  /// The paired phone with this id, if any.
  public func device(id: String) -> KDEConnectTrustedDevice? {
    devices.withLock { list in list.first { $0.id == id } }
  }

  /// The certificate pinned for the device (DER), if it is paired.
  public func pinnedCertificate(id: String) -> [UInt8]? {
    device(id: id).flatMap { Data(base64Encoded: $0.certificate) }.map { Array($0) }
  }

  /// Pins a device (or updates its name).
  public func pin(_ device: KDEConnectTrustedDevice) throws(Failure) {
    let list = devices.withLock { list in
      list.removeAll { $0.id == device.id }
      list.append(device)
      return list
    }
    try save(list)
  }

  /// Forgets a device.
  public func unpin(id: String) throws(Failure) {
    let list = devices.withLock { list in
      list.removeAll { $0.id == id }
      return list
    }
    try save(list)
  }

  private func save(_ list: [KDEConnectTrustedDevice]) throws(Failure) {
    do {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      let data = try encoder.encode(list)
      let temporary = path + ".new"
      guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600])
      else { throw Failure(description: "cannot write \(temporary)") }
      guard rename(temporary, path) == 0 else { throw Failure(description: "cannot replace \(path)") }
    } catch let failure as Failure {
      throw failure
    } catch {
      throw Failure(description: "cannot write the paired phones to \(path): \(error)")
    }
  }
}
