import Crypto
import SwiftASN1
import X509

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

/// This host's KDE Connect identity: a P-256 key and a self-signed certificate whose common name is the
/// device id, made once and kept in the state folder (`certificate.pem`, `private-key.pem`, both 0600), so
/// the phones that paired with it know it again after a restart.
public struct KDEConnectCertificate: Sendable {
  /// The device id: the certificate's common name.
  public let deviceID: String
  /// The certificate, DER.
  public let der: [UInt8]
  /// The certificate, PEM.
  public let certificatePEM: String
  /// The private key, PEM (PKCS#8).
  public let privateKeyPEM: String

  /// Why the identity could not be read or made.
  public struct Failure: Error, CustomStringConvertible, Sendable {
    /// What went wrong, with the file.
    public var description: String
  }

  /// The identity kept in `directory`, or a new one made and written there (the folder is made, 0700).
  public static func loadOrCreate(in directory: String, now: Date = Date()) throws(Failure) -> KDEConnectCertificate {
    let certificatePath = directory + "/certificate.pem"
    let keyPath = directory + "/private-key.pem"
    let files = FileManager.default
    if files.fileExists(atPath: certificatePath) && files.fileExists(atPath: keyPath) {
      do {
        let certificatePEM = try String(contentsOfFile: certificatePath, encoding: .utf8)
        let keyPEM = try String(contentsOfFile: keyPath, encoding: .utf8)
        let certificate = try Certificate(pemEncoded: certificatePEM)
        _ = try P256.Signing.PrivateKey(pemRepresentation: keyPEM)
        guard let id = commonName(of: certificate) else {
          throw Failure(
            description: "\(certificatePath) names no device id (common name); remove both files to make new ones")
        }
        return KDEConnectCertificate(
          deviceID: id, der: try der(of: certificate), certificatePEM: certificatePEM, privateKeyPEM: keyPEM)
      } catch let failure as Failure {
        throw failure
      } catch {
        throw Failure(
          description: "cannot read \(certificatePath) or \(keyPath): \(error); remove both to make a new identity "
            + "(paired phones must then pair again)")
      }
    }
    do {
      try files.createDirectory(
        atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      let made = try make(now: now)
      try write(made.privateKeyPEM, to: keyPath)
      try write(made.certificatePEM, to: certificatePath)
      return made
    } catch {
      throw Failure(description: "cannot make this host's KDE Connect identity in \(directory): \(error)")
    }
  }

  /// A new identity: a random device id (32 hexadecimal digits, as KDE Connect makes them), valid from a year ago
  /// (a phone whose clock is behind still accepts it) for ten years.
  public static func make(now: Date = Date()) throws -> KDEConnectCertificate {
    let deviceID = UUID().uuidString.replacing("-", with: "").lowercased()
    let key = P256.Signing.PrivateKey()
    let name = try DistinguishedName {
      CommonName(deviceID)
      OrganizationName("KDE")
      OrganizationalUnitName("KDE Connect")
    }
    let year: TimeInterval = 365 * 24 * 3_600
    let certificate = try Certificate(
      version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
      notValidBefore: now.addingTimeInterval(-year), notValidAfter: now.addingTimeInterval(10 * year),
      issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256, extensions: Certificate.Extensions(),
      issuerPrivateKey: .init(key))
    return KDEConnectCertificate(
      deviceID: deviceID, der: try der(of: certificate), certificatePEM: try certificate.serializeAsPEM().pemString,
      privateKeyPEM: key.pemRepresentation)
  }

  /// The common name of a certificate given as DER (a peer's device id), or nil when it cannot be read.
  public static func commonName(der: [UInt8]) -> String? {
    guard let certificate = try? Certificate(derEncoded: der) else { return nil }
    return commonName(of: certificate)
  }

  /// The subject public key info of a certificate given as DER, for the pairing's verification key.
  public static func publicKeyInfo(der: [UInt8]) -> [UInt8]? {
    guard let certificate = try? Certificate(derEncoded: der) else { return nil }
    var serializer = DER.Serializer()
    guard (try? serializer.serialize(certificate.publicKey)) != nil else { return nil }
    return serializer.serializedBytes
  }

  /// The eight characters both sides show while pairing (protocol 8): SHA-256 over the two public keys, the larger
  /// first, and the request's timestamp; the user compares them to know no one sits between.
  public static func verificationKey(ours: [UInt8], theirs: [UInt8], timestamp: Int64?) -> String? {
    guard var first = publicKeyInfo(der: ours), var second = publicKeyInfo(der: theirs) else { return nil }
    if first.lexicographicallyPrecedes(second) { swap(&first, &second) }
    var hash = SHA256()
    hash.update(data: first)
    hash.update(data: second)
    if let timestamp { hash.update(data: Array(String(timestamp).utf8)) }
    let hex = hash.finalize().map { byte in
      let text = String(byte, radix: 16, uppercase: true)
      return text.count == 1 ? "0" + text : text
    }.joined()
    return String(hex.prefix(8))
  }

  private static func commonName(of certificate: Certificate) -> String? {
    for name in certificate.subject {
      for attribute in name where attribute.type == .RDNAttributeType.commonName {
        return String(attribute.value)
      }
    }
    return nil
  }

  private static func der(of certificate: Certificate) throws -> [UInt8] {
    var serializer = DER.Serializer()
    try serializer.serialize(certificate)
    return serializer.serializedBytes
  }

  private static func write(_ text: String, to path: String) throws {
    guard
      FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
    else { throw Failure(description: "cannot write \(path)") }
  }
}
