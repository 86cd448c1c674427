import Synchronization

/// What one link's TLS handshake learnt of the peer's certificate: the certificate (DER), or why it was refused.
/// Written by the verification callback and read by the link handler, both on the link's event loop.
final class KDEConnectPeerCertificate: Sendable {
  private let state = Mutex<(der: [UInt8]?, refusal: String?)>((nil, nil))

  /// The certificate the peer showed, once checked.
  var der: [UInt8]? { state.withLock { $0.der } }
  /// Why the certificate was refused, if it was.
  var refusal: String? { state.withLock { $0.refusal } }

  func accepted(_ der: [UInt8]) { state.withLock { $0.der = der } }
  func refused(_ reason: String) { state.withLock { $0.refusal = reason } }
}
